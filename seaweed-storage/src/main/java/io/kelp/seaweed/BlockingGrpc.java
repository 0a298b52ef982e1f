package io.kelp.seaweed;

import static io.kelp.seaweed.Http2Wire.ACK;
import static io.kelp.seaweed.Http2Wire.CONTINUATION;
import static io.kelp.seaweed.Http2Wire.DATA;
import static io.kelp.seaweed.Http2Wire.END_HEADERS;
import static io.kelp.seaweed.Http2Wire.END_STREAM;
import static io.kelp.seaweed.Http2Wire.GOAWAY;
import static io.kelp.seaweed.Http2Wire.HEADERS;
import static io.kelp.seaweed.Http2Wire.PADDED;
import static io.kelp.seaweed.Http2Wire.PING;
import static io.kelp.seaweed.Http2Wire.PREFACE;
import static io.kelp.seaweed.Http2Wire.PRIORITY;
import static io.kelp.seaweed.Http2Wire.PUSH_PROMISE;
import static io.kelp.seaweed.Http2Wire.RST_STREAM;
import static io.kelp.seaweed.Http2Wire.SETTINGS;
import static io.kelp.seaweed.Http2Wire.SETTINGS_ENABLE_PUSH;
import static io.kelp.seaweed.Http2Wire.SETTINGS_HEADER_TABLE_SIZE;
import static io.kelp.seaweed.Http2Wire.SETTINGS_INITIAL_WINDOW_SIZE;
import static io.kelp.seaweed.Http2Wire.SETTINGS_MAX_FRAME_SIZE;
import static io.kelp.seaweed.Http2Wire.WINDOW_UPDATE;
import static io.kelp.seaweed.Http2Wire.frame;
import static io.kelp.seaweed.Http2Wire.httpStatus;
import static io.kelp.seaweed.Http2Wire.int31;
import static io.kelp.seaweed.Http2Wire.literal;
import static io.kelp.seaweed.Http2Wire.putSetting;
import static io.kelp.seaweed.Http2Wire.readInt;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unary gRPC calls over HTTP/2 on plain blocking sockets, one call at a time per connection, made
 * on the caller's thread. The store's fenced appends use it for their filer transactions: through
 * grpc-java each call crossed to Netty's event loop and back and woke it for every frame weed sent,
 * which cost the broker more CPU per transaction than the chunk's upload. Here a call is one socket
 * write and the reads of its answer. Connections are pooled: a caller takes an idle one or opens
 * one, and puts it back after a clean answer.
 *
 * <p>What it speaks of HTTP/2 (RFC 9113) is what a unary call needs: the preface and settings,
 * HEADERS (with CONTINUATION) and DATA both ways with flow control, and answers to the server's
 * SETTINGS and PING; GOAWAY and RST_STREAM end the call. Headers are sent as literals, never
 * indexed; the server's are decoded with Netty's HPACK decoder. Failures come as gRPC statuses, as
 * grpc-java reports them: UNAVAILABLE when the connection fails (or the server refused the stream
 * unprocessed), DEADLINE_EXCEEDED when the answer is late, and the server's own status otherwise.
 */
final class BlockingGrpc implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BlockingGrpc.class);

  /** The default window and frame size of HTTP/2, until the server's settings say otherwise. */
  private static final int DEFAULT_WINDOW = 65_535;

  private static final int DEFAULT_MAX_FRAME = 16_384;

  /** The receive window this side announces, for each stream and for the connection. */
  private static final int RECEIVE_WINDOW = 1 << 30;

  /** Frames larger than this from the server end the connection. */
  private static final int MAX_FRAME_READ = 1 << 24;

  /** Idle connections kept for later calls. */
  private static final int MAX_IDLE = 16;

  /** How long an idle connection may wait for its next call: well under weed's keepalive. */
  private static final long MAX_IDLE_NANOS = 20_000_000_000L;

  private final String host;
  private final int port;
  private final int connectTimeoutMs;
  private final int maxMessageBytes;
  private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
  private final AtomicInteger opened = new AtomicInteger();
  private volatile boolean closed;

  BlockingGrpc(String host, int port, int connectTimeoutMs, int maxMessageBytes) {
    this.host = host;
    this.port = port;
    this.connectTimeoutMs = connectTimeoutMs;
    this.maxMessageBytes = maxMessageBytes;
  }

  /** Connections opened so far, for tests. */
  int connectionsOpened() {
    return opened.get();
  }

  /**
   * Calls {@code method} ("/package.Service/Method") with {@code request} and returns the answer,
   * waiting at most {@code timeoutMs}.
   *
   * @throws StatusRuntimeException if the call did not end with an answer and status OK
   */
  <T> T call(String method, MessageLite request, Parser<T> parser, long timeoutMs) {
    return call(method, request, parser, timeoutMs, null);
  }

  /**
   * {@link #call(String, MessageLite, Parser, long)}, running {@code meanwhile} (unless null) on
   * this thread once the request is sent and before its answer is read, so that other work of the
   * caller (an upload) overlaps the server's without a second thread. The time it takes does not
   * count against {@code timeoutMs}. It does not run if the call fails before the request is sent.
   */
  <T> T call(
      String method, MessageLite request, Parser<T> parser, long timeoutMs, Runnable meanwhile) {
    if (closed) {
      throw Status.UNAVAILABLE.withDescription("the filer client is closed").asRuntimeException();
    }
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    Connection c = null;
    try {
      c = idleConnection(deadline);
      if (c == null) {
        c = connect(timeoutMs);
      }
      byte[] answer = c.call(method, request.toByteArray(), deadline, meanwhile);
      T parsed = parser.parseFrom(answer);
      release(c);
      return parsed;
    } catch (StatusRuntimeException e) {
      if (c != null) {
        release(c); // closed unless the call ended cleanly with the server's status
      }
      throw e;
    } catch (InvalidProtocolBufferException e) {
      close(c);
      throw Status.INTERNAL
          .withDescription(method + ": an answer that does not parse: " + e.getMessage())
          .withCause(e)
          .asRuntimeException();
    } catch (SocketTimeoutException e) {
      close(c);
      throw Status.DEADLINE_EXCEEDED
          .withDescription("no answer from " + host + ":" + port + " to " + method + " in time")
          .withCause(e)
          .asRuntimeException();
    } catch (IOException e) {
      close(c);
      throw Status.UNAVAILABLE
          .withDescription(method + " to " + host + ":" + port + ": " + e)
          .withCause(e)
          .asRuntimeException();
    } catch (RuntimeException e) {
      // a bug, or an answer this client did not foresee: the connection's state is unknown
      close(c);
      throw Status.INTERNAL
          .withDescription(method + " to " + host + ":" + port + " failed: " + e)
          .withCause(e)
          .asRuntimeException();
    }
  }

  /**
   * An idle connection fit for a call, or null: one idle for long is closed rather than used (weed
   * pings a client after a minute without calls, and drops it if the ping goes unanswered), and
   * frames that came while it sat idle (window updates, a GOAWAY) are read first.
   */
  private Connection idleConnection(long deadline) {
    Connection c;
    while ((c = idle.pollFirst()) != null) {
      if (System.nanoTime() - c.lastUsed < MAX_IDLE_NANOS) {
        try {
          c.readPending(deadline);
          if (c.reusable()) {
            return c;
          }
        } catch (IOException | RuntimeException e) {
          log.debug("an idle connection to {}:{} failed", host, port, e);
        }
      }
      c.close();
    }
    return null;
  }

  private void release(Connection c) {
    c.lastUsed = System.nanoTime();
    if (c.reusable() && !closed && idle.size() < MAX_IDLE) {
      idle.addFirst(c);
    } else {
      c.close();
    }
  }

  private static void close(Connection c) {
    if (c != null) {
      c.close();
    }
  }

  private Connection connect(long timeoutMs) throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(
          new InetSocketAddress(host, port),
          (int) Math.max(1, Math.min(connectTimeoutMs, timeoutMs)));
    } catch (IOException e) {
      s.close();
      throw e instanceof ConnectException ? e : new ConnectException(e.toString());
    }
    opened.incrementAndGet();
    Connection c = new Connection(s, host + ":" + port, maxMessageBytes);
    try {
      c.start();
    } catch (IOException e) {
      c.close();
      throw e;
    }
    return c;
  }

  @Override
  public void close() {
    closed = true;
    Connection c;
    while ((c = idle.pollFirst()) != null) {
      c.close();
    }
  }

  /** One HTTP/2 connection; its calls run one after the other. */
  private static final class Connection {
    private final Socket socket;
    private final String authority;
    private final int maxMessageBytes;
    private final InputStream in;
    private final OutputStream out;
    private final DefaultHttp2HeadersDecoder decoder =
        new DefaultHttp2HeadersDecoder(false, MAX_FRAME_READ);
    private final byte[] header = new byte[9];
    private int nextStream = 1;
    private long sendWindow = DEFAULT_WINDOW;
    private int peerInitialWindow = DEFAULT_WINDOW;
    private int peerMaxFrame = DEFAULT_MAX_FRAME;
    private long received;
    private boolean goingAway;
    private boolean broken;
    long lastUsed = System.nanoTime();

    // the current call
    private int stream;
    private long streamSendWindow;
    private ByteArrayOutputStream body;
    private Http2Headers trailers;
    private boolean ended;

    Connection(Socket socket, String authority, int maxMessageBytes) throws IOException {
      this.socket = socket;
      this.authority = authority;
      this.maxMessageBytes = maxMessageBytes;
      this.in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
      this.out = socket.getOutputStream();
    }

    /** Sends the preface, this side's settings and a larger connection window. */
    void start() throws IOException {
      ByteArrayOutputStream o = new ByteArrayOutputStream(64);
      o.write(PREFACE);
      byte[] settings = new byte[18];
      putSetting(settings, 0, SETTINGS_ENABLE_PUSH, 0);
      putSetting(settings, 6, SETTINGS_INITIAL_WINDOW_SIZE, RECEIVE_WINDOW);
      putSetting(settings, 12, SETTINGS_HEADER_TABLE_SIZE, 4096);
      frame(o, SETTINGS, 0, 0, settings, 0, settings.length);
      frame(o, WINDOW_UPDATE, 0, 0, int31(RECEIVE_WINDOW - DEFAULT_WINDOW), 0, 4);
      out.write(o.toByteArray());
      out.flush();
    }

    boolean reusable() {
      return !goingAway && !broken && nextStream < (1 << 30);
    }

    byte[] call(String method, byte[] message, long deadline, Runnable meanwhile)
        throws IOException {
      if (!reusable()) {
        throw new IOException("the connection is closing");
      }
      stream = nextStream;
      nextStream += 2;
      streamSendWindow = peerInitialWindow;
      body = new ByteArrayOutputStream(256);
      trailers = null;
      ended = false;
      boolean done = false;
      try {
        byte[] grpcMessage = new byte[5 + message.length];
        grpcMessage[1] = (byte) (message.length >>> 24);
        grpcMessage[2] = (byte) (message.length >>> 16);
        grpcMessage[3] = (byte) (message.length >>> 8);
        grpcMessage[4] = (byte) message.length;
        System.arraycopy(message, 0, grpcMessage, 5, message.length);
        ByteArrayOutputStream o = new ByteArrayOutputStream(grpcMessage.length + 256);
        byte[] block = headerBlock(method, deadline);
        frame(o, HEADERS, END_HEADERS, stream, block, 0, block.length);
        int sent = 0;
        while (true) {
          int n =
              (int)
                  Math.min(
                      grpcMessage.length - sent,
                      Math.min(peerMaxFrame, Math.min(sendWindow, streamSendWindow)));
          if (n > 0 || sent == grpcMessage.length) {
            boolean last = sent + n == grpcMessage.length;
            frame(o, DATA, last ? END_STREAM : 0, stream, grpcMessage, sent, n);
            sent += n;
            sendWindow -= n;
            streamSendWindow -= n;
            if (last) {
              break;
            }
            continue;
          }
          // the window is full: send what is framed, then wait for the server to open it
          out.write(o.toByteArray());
          o.reset();
          out.flush();
          readFrame(deadline);
          if (ended) {
            throw Status.INTERNAL
                .withDescription(method + ": the server ended the call before the request")
                .asRuntimeException();
          }
        }
        out.write(o.toByteArray());
        out.flush();
        if (meanwhile != null) {
          long start = System.nanoTime();
          try {
            meanwhile.run();
          } finally {
            deadline += System.nanoTime() - start;
          }
        }
        while (!ended) {
          readFrame(deadline);
        }
        done = true;
      } finally {
        if (!done) {
          broken = true;
        }
      }
      // the call ended cleanly: a failure it reports leaves the connection usable
      byte[] b = body.toByteArray();
      body = null;
      return answer(method, b);
    }

    /** Handles the frames already received, without waiting for more than their rest. */
    void readPending(long deadline) throws IOException {
      stream = 0;
      ended = true;
      while (in.available() > 0 && !broken) {
        readFrame(deadline);
      }
    }

    private byte[] headerBlock(String method, long deadline) {
      ByteArrayOutputStream b = new ByteArrayOutputStream(160);
      literal(b, ":method", "POST");
      literal(b, ":scheme", "http");
      literal(b, ":path", method);
      literal(b, ":authority", authority);
      literal(b, "content-type", "application/grpc");
      literal(b, "te", "trailers");
      long ms = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      literal(b, "grpc-timeout", Math.min(ms, 99_999_999) + "m");
      return b.toByteArray();
    }

    /** The answer's message, or the call's failure as the server's trailers state it. */
    private byte[] answer(String method, byte[] b) {
      if (trailers == null) {
        throw Status.INTERNAL
            .withDescription(method + ": the answer ended without a gRPC status")
            .asRuntimeException();
      }
      CharSequence code = trailers.get("grpc-status");
      if (code == null) {
        CharSequence http = trailers.status();
        Status s =
            http != null && !"200".contentEquals(http)
                ? httpStatus(http.toString())
                : Status.INTERNAL.withDescription("the answer had no grpc-status");
        throw s.withDescription(method + ": " + s.getDescription()).asRuntimeException();
      }
      int value;
      try {
        value = Integer.parseInt(code.toString());
      } catch (NumberFormatException e) {
        throw Status.INTERNAL
            .withDescription(method + ": bad grpc-status " + code)
            .asRuntimeException();
      }
      if (value != 0) {
        CharSequence message = trailers.get("grpc-message");
        throw Status.fromCodeValue(value)
            .withDescription(
                message == null
                    ? method
                    : method
                        + ": "
                        + URLDecoder.decode(
                            message.toString().replace("+", "%2B"), StandardCharsets.UTF_8))
            .asRuntimeException();
      }
      if (b.length < 5) {
        throw Status.INTERNAL
            .withDescription(method + ": the answer held no message")
            .asRuntimeException();
      }
      if (b[0] != 0) {
        throw Status.INTERNAL
            .withDescription(method + ": the answer is compressed, which was not asked for")
            .asRuntimeException();
      }
      long length =
          ((b[1] & 0xffL) << 24) | ((b[2] & 0xff) << 16) | ((b[3] & 0xff) << 8) | (b[4] & 0xff);
      if (length != b.length - 5) {
        throw Status.INTERNAL
            .withDescription(
                method + ": the answer's length " + length + " disagrees with its " + b.length)
            .asRuntimeException();
      }
      return Arrays.copyOfRange(b, 5, b.length);
    }

    /** Reads and handles one frame. */
    private void readFrame(long deadline) throws IOException {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        throw new SocketTimeoutException("deadline passed");
      }
      socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
      readFully(header, 9);
      int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
      int type = header[3] & 0xff;
      int flags = header[4] & 0xff;
      int id =
          ((header[5] & 0x7f) << 24)
              | ((header[6] & 0xff) << 16)
              | ((header[7] & 0xff) << 8)
              | (header[8] & 0xff);
      if (length > MAX_FRAME_READ) {
        throw protocol("a frame of " + length + " bytes");
      }
      byte[] payload = new byte[length];
      readFully(payload, length);
      switch (type) {
        case DATA -> onData(id, flags, payload);
        case HEADERS -> onHeaders(id, flags, payload);
        case RST_STREAM -> onReset(id, payload);
        case SETTINGS -> onSettings(flags, payload);
        case PUSH_PROMISE -> throw protocol("a PUSH_PROMISE, though push is off");
        case PING -> onPing(flags, payload);
        case GOAWAY -> onGoAway(payload);
        case WINDOW_UPDATE -> onWindowUpdate(id, payload);
        case CONTINUATION -> throw protocol("a CONTINUATION without HEADERS");
        default -> {
          // unknown frame types are ignored (RFC 9113, section 4.1)
        }
      }
    }

    private void onData(int id, int flags, byte[] payload) throws IOException {
      received += payload.length;
      if (received >= RECEIVE_WINDOW / 2) {
        ByteArrayOutputStream o = new ByteArrayOutputStream(13);
        frame(o, WINDOW_UPDATE, 0, 0, int31((int) received), 0, 4);
        out.write(o.toByteArray());
        out.flush();
        received = 0;
      }
      if (id != stream || ended) {
        return; // an earlier call's, which failed
      }
      int from = (flags & PADDED) != 0 ? 1 : 0;
      int to = unpaddedEnd(flags, payload);
      if (body.size() + (to - from) > maxMessageBytes + 5L) {
        throw Status.RESOURCE_EXHAUSTED
            .withDescription("an answer larger than " + maxMessageBytes + " bytes")
            .asRuntimeException();
      }
      body.write(payload, from, to - from);
      if ((flags & END_STREAM) != 0) {
        ended = true;
      }
    }

    /** Where a DATA or HEADERS frame's content ends, before its padding. */
    private int unpaddedEnd(int flags, byte[] payload) throws IOException {
      if ((flags & PADDED) == 0) {
        return payload.length;
      }
      if (payload.length == 0 || (payload[0] & 0xff) >= payload.length) {
        throw protocol("bad padding");
      }
      return payload.length - (payload[0] & 0xff);
    }

    private void onHeaders(int id, int flags, byte[] payload) throws IOException {
      int from = (flags & PADDED) != 0 ? 1 : 0;
      int to = unpaddedEnd(flags, payload);
      if ((flags & PRIORITY) != 0) {
        from += 5;
      }
      if (from > to) {
        throw protocol("a HEADERS frame too short");
      }
      ByteArrayOutputStream block = new ByteArrayOutputStream(to - from + 64);
      block.write(payload, from, to - from);
      int blockFlags = flags;
      while ((blockFlags & END_HEADERS) == 0) {
        readFully(header, 9);
        int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
        if ((header[3] & 0xff) != CONTINUATION || length > MAX_FRAME_READ) {
          throw protocol("HEADERS not followed by CONTINUATION");
        }
        blockFlags = header[4] & 0xff;
        byte[] more = new byte[length];
        readFully(more, length);
        block.write(more);
        if (block.size() > MAX_FRAME_READ) {
          throw protocol("headers too large");
        }
      }
      Http2Headers decoded;
      ByteBuf buf = Unpooled.wrappedBuffer(block.toByteArray());
      try {
        // every header block is decoded, in order, to keep HPACK's table in step
        decoded = decoder.decodeHeaders(id, buf);
      } catch (Http2Exception e) {
        throw protocol("undecodable headers: " + e.getMessage());
      } finally {
        buf.release();
      }
      if (id != stream || ended) {
        return;
      }
      if ((flags & END_STREAM) != 0) {
        // trailers, or a response of trailers only
        trailers = decoded;
        ended = true;
      } else {
        CharSequence http = decoded.status();
        if (http != null && !"200".contentEquals(http)) {
          Status s = httpStatus(http.toString());
          throw s.asRuntimeException();
        }
      }
    }

    private void onReset(int id, byte[] payload) throws IOException {
      if (payload.length != 4) {
        throw protocol("RST_STREAM of " + payload.length + " bytes");
      }
      if (id != stream || ended) {
        return;
      }
      int code = readInt(payload, 0);
      // REFUSED_STREAM (7): the server did not process it
      Status s =
          switch (code) {
            case 7 -> Status.UNAVAILABLE.withDescription("the server refused the stream");
            case 8 -> Status.CANCELLED.withDescription("the server cancelled the call");
            case 11 -> Status.RESOURCE_EXHAUSTED.withDescription("the server is overloaded");
            default -> Status.INTERNAL.withDescription("the server reset the call, code " + code);
          };
      broken = code != 7 && code != 8;
      ended = true;
      throw s.asRuntimeException();
    }

    private void onSettings(int flags, byte[] payload) throws IOException {
      if ((flags & ACK) != 0) {
        return;
      }
      if (payload.length % 6 != 0) {
        throw protocol("SETTINGS of " + payload.length + " bytes");
      }
      for (int i = 0; i < payload.length; i += 6) {
        int key = ((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff);
        int value = readInt(payload, i + 2);
        if (key == SETTINGS_INITIAL_WINDOW_SIZE) {
          if (value < 0) {
            throw protocol("an initial window over 2^31-1");
          }
          streamSendWindow += (long) value - peerInitialWindow;
          peerInitialWindow = value;
        } else if (key == SETTINGS_MAX_FRAME_SIZE) {
          if (value < DEFAULT_MAX_FRAME || value > (1 << 24) - 1) {
            throw protocol("a max frame size of " + value);
          }
          peerMaxFrame = value;
        }
      }
      ByteArrayOutputStream o = new ByteArrayOutputStream(9);
      frame(o, SETTINGS, ACK, 0, new byte[0], 0, 0);
      out.write(o.toByteArray());
      out.flush();
    }

    private void onPing(int flags, byte[] payload) throws IOException {
      if (payload.length != 8) {
        throw protocol("PING of " + payload.length + " bytes");
      }
      if ((flags & ACK) != 0) {
        return;
      }
      ByteArrayOutputStream o = new ByteArrayOutputStream(17);
      frame(o, PING, ACK, 0, payload, 0, 8);
      out.write(o.toByteArray());
      out.flush();
    }

    private void onGoAway(byte[] payload) throws IOException {
      if (payload.length < 8) {
        throw protocol("GOAWAY of " + payload.length + " bytes");
      }
      goingAway = true;
      int last = readInt(payload, 0) & 0x7fffffff;
      if (stream > last && !ended) {
        // not processed (RFC 9113, section 6.8): safe to send again
        ended = true;
        throw Status.UNAVAILABLE
            .withDescription("the server is closing the connection")
            .asRuntimeException();
      }
    }

    private void onWindowUpdate(int id, byte[] payload) throws IOException {
      if (payload.length != 4) {
        throw protocol("WINDOW_UPDATE of " + payload.length + " bytes");
      }
      int increment = readInt(payload, 0) & 0x7fffffff;
      if (id == 0) {
        sendWindow += increment;
      } else if (id == stream) {
        streamSendWindow += increment;
      }
    }

    private void readFully(byte[] b, int n) throws IOException {
      int at = 0;
      while (at < n) {
        int r = in.read(b, at, n - at);
        if (r < 0) {
          throw new EOFException("the server closed the connection");
        }
        at += r;
      }
    }

    private IOException protocol(String what) {
      broken = true;
      log.warn("HTTP/2 connection to {}: {}; closing it", authority, what);
      return new IOException("HTTP/2 protocol error from " + authority + ": " + what);
    }

    void close() {
      broken = true;
      try {
        socket.close();
      } catch (IOException e) {
        log.debug("closing the connection to {}", authority, e);
      }
    }
  }
}
