package io.kelp.seaweed;

import io.kelp.seaweed.HttpConnections.Connection;
import io.kelp.seaweed.HttpConnections.Inbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A small HTTP/1.1 client for chunk uploads and reads: the request is written by the calling thread
 * straight from the caller's buffer into a kept-alive socket (with no copy in between for a direct
 * buffer), and the answer read back on the same thread. The JDK's HttpClient hands every request to
 * its selector thread and back, which under produce load cost the broker a fifth of its CPU time
 * and a thread switch each way; uploads are small, sequential per caller and go to few volume
 * servers, which a pool of plain sockets serves well.
 *
 * <p>Reads of several ranges from one server can be pipelined ({@link #getPipelined}).
 *
 * <p>Answers with a Content-Length, chunked answers and answers ended by closing the connection are
 * understood. A request on a kept-alive connection that the server had already closed is sent once
 * more on a new one (a PUT of the same chunk id stores the same bytes again). Thread-safe.
 *
 * <p>Answers are read with the channel's own reads: the head through a small direct buffer per
 * connection, a body of known length asked for in a buffer straight into that buffer, so its bytes
 * are copied once, from the socket. Channel reads do not honour the socket's read timeout, so a
 * watchdog closes a connection whose exchange has not moved for the read timeout (no byte written
 * or read); the exchange then fails with a {@link SocketTimeoutException}.
 */
final class PlainHttp implements AutoCloseable {
  /** Response bodies beyond this are cut, unless the caller asks for more. */
  static final int MAX_BODY = 64 << 10;

  private static final int MAX_HEAD = 16 << 10;
  private static final int MAX_IDLE_PER_HOST = 32;

  /** Runs every client's timeout checks; they are short scans of a few connections. */
  private static final ScheduledExecutorService WATCHDOG =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "kelp-http-timeouts");
            t.setDaemon(true);
            return t;
          });

  private final int connectTimeoutMs;
  private final int readTimeoutMs;
  private final long readTimeoutNanos;
  private final Map<String, ArrayDeque<Connection>> idle = new HashMap<>();
  private final Set<Connection> open = ConcurrentHashMap.newKeySet();
  private final ScheduledFuture<?> watch;
  private boolean closed;

  /** A status code and (the first {@code maxBody} bytes of) the body. */
  record Response(int status, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /**
   * A status code and (the first {@code maxBody} bytes of) the body, in a buffer the caller must
   * release.
   */
  record BufferResponse(int status, ByteBuf body) {}

  PlainHttp(int connectTimeoutMs, int readTimeoutMs) {
    this.connectTimeoutMs = connectTimeoutMs;
    this.readTimeoutMs = readTimeoutMs;
    this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(readTimeoutMs);
    // checked four times per timeout (at most once a second): an exchange that stalls fails
    // between one and one and a quarter timeouts later
    long period = Math.max(10, Math.min(readTimeoutMs / 4, 1000));
    this.watch =
        WATCHDOG.scheduleWithFixedDelay(this::expire, period, period, TimeUnit.MILLISECONDS);
  }

  /** Closes the connections whose exchange has not moved for the read timeout. */
  private void expire() {
    long now = System.nanoTime();
    for (Connection c : open) {
      c.expireIfStalled(now, readTimeoutNanos);
    }
  }

  /**
   * Sends {@code method pathAndQuery} to {@code hostPort} with {@code body} (may be null) and the
   * given extra headers (name, value, name, value, ...), and reads the answer.
   */
  Response send(
      String hostPort, String method, String pathAndQuery, ByteBuf body, String... headers)
      throws IOException {
    return send(hostPort, method, pathAndQuery, body, MAX_BODY, headers);
  }

  /** {@link #send}, keeping up to {@code maxBody} bytes of the answer's body. */
  Response send(
      String hostPort,
      String method,
      String pathAndQuery,
      ByteBuf body,
      int maxBody,
      String... headers)
      throws IOException {
    Answer answer = exchange(hostPort, method, pathAndQuery, body, maxBody, null, headers);
    return new Response(answer.status, answer.body.bytes());
  }

  /**
   * {@link #send} without a request body, keeping up to {@code maxBody} bytes of the answer's body
   * in a buffer from {@code alloc}: a body of known length is read straight into it, so reading
   * leaves no garbage array behind.
   */
  BufferResponse sendForBuffer(
      ByteBufAllocator alloc,
      String hostPort,
      String method,
      String pathAndQuery,
      int maxBody,
      String... headers)
      throws IOException {
    Answer answer = exchange(hostPort, method, pathAndQuery, null, maxBody, alloc, headers);
    return new BufferResponse(answer.status, answer.body.buffer());
  }

  /** A GET of a pipelined batch: its path and query, the body bytes to keep, extra headers. */
  record Get(String pathAndQuery, int maxBody, String... headers) {}

  /**
   * The answers of a pipelined batch, in the order asked, each in a buffer the caller releases: all
   * of them, or the first ones and the {@code failure} that stopped the rest.
   */
  record Pipelined(List<BufferResponse> answers, IOException failure) {}

  /** GETs written to a connection before its first answer is read. */
  static final int MAX_PIPELINE = 32;

  /**
   * Sends the GETs to {@code hostPort} pipelined (HTTP/1.1): up to {@value #MAX_PIPELINE} requests
   * written to one kept-alive connection at once, then their answers read in order, on the calling
   * thread. A batch of small reads so costs one write and no thread switch per answer. Bodies are
   * kept as {@link #sendForBuffer} keeps them. When the connection ends early (the server closed
   * it, or it failed) the GETs not answered yet are sent again on a new one, as long as each
   * connection answers at least one; GETs change nothing, so asking twice is harmless. An {@link
   * IOException} that stops the batch comes back in {@link Pipelined#failure} with the answers read
   * before it.
   */
  Pipelined getPipelined(ByteBufAllocator alloc, String hostPort, List<Get> gets) {
    List<BufferResponse> answers = new ArrayList<>(gets.size());
    try {
      return getPipelined(alloc, hostPort, gets, answers);
    } catch (RuntimeException | Error e) {
      // Out of direct memory, say: the answers read are the caller's to release only if returned.
      answers.forEach(a -> a.body().release());
      throw e;
    }
  }

  private Pipelined getPipelined(
      ByteBufAllocator alloc, String hostPort, List<Get> gets, List<BufferResponse> answers) {
    boolean fresh = false;
    while (answers.size() < gets.size()) {
      int from = answers.size();
      int to = Math.min(gets.size(), from + MAX_PIPELINE);
      Connection c = fresh ? null : take(hostPort);
      boolean reused = c != null;
      IOException failure = null;
      if (c == null) {
        try {
          c = connect(hostPort);
        } catch (IOException e) {
          return new Pipelined(answers, e);
        }
      }
      boolean keep = false;
      c.begin();
      try {
        ByteArrayOutputStream heads = new ByteArrayOutputStream(160 * (to - from));
        for (int i = from; i < to; i++) {
          Get g = gets.get(i);
          heads.writeBytes(head(hostPort, "GET", g.pathAndQuery, null, g.headers));
        }
        c.write(heads.toByteArray(), null);
        keep = true;
        for (int i = from; i < to && keep; i++) {
          Answer answer = read(c, gets.get(i).maxBody, alloc);
          answers.add(new BufferResponse(answer.status, answer.body.buffer()));
          keep = c.keepAlive;
        }
      } catch (IOException e) {
        keep = false;
        failure = e;
        if (c.timedOut()) {
          failure = timedOut("GET", hostPort, e);
        }
      } finally {
        release(hostPort, c, keep);
      }
      if (failure instanceof SocketTimeoutException) {
        return new Pipelined(answers, failure);
      }
      if (answers.size() == from) {
        // No answer on this connection: a kept-alive one the server had closed gets one more try
        // on a new connection; a new one that answers nothing ends the batch.
        if (!reused) {
          return new Pipelined(answers, failure);
        }
        fresh = true;
      } else {
        fresh = false;
      }
    }
    return new Pipelined(answers, null);
  }

  private record Answer(int status, Body body) {}

  private Answer exchange(
      String hostPort,
      String method,
      String pathAndQuery,
      ByteBuf body,
      int maxBody,
      ByteBufAllocator alloc,
      String... headers)
      throws IOException {
    byte[] head = head(hostPort, method, pathAndQuery, body, headers);
    for (int attempt = 1; ; attempt++) {
      Connection c = attempt == 1 ? take(hostPort) : null;
      boolean reused = c != null;
      if (c == null) {
        c = connect(hostPort);
      }
      boolean keep = false;
      c.begin();
      try {
        c.write(head, body);
        Answer answer = read(c, maxBody, alloc);
        keep = c.keepAlive;
        return answer;
      } catch (IOException e) {
        if (c.timedOut()) {
          throw timedOut(method, hostPort, e);
        }
        // A kept-alive connection the server closed meanwhile fails at once: try a fresh one.
        if (!reused || attempt > 1) {
          throw e;
        }
      } finally {
        release(hostPort, c, keep);
      }
    }
  }

  /** Ends an exchange on {@code c}: back to the pool if it may carry another, else closed. */
  private void release(String hostPort, Connection c, boolean keep) {
    boolean intact = c.end();
    if (keep && intact) {
      give(hostPort, c);
    } else {
      c.close();
    }
  }

  /** The failure of an exchange the watchdog closed for standing still. */
  private SocketTimeoutException timedOut(String method, String hostPort, IOException cause) {
    SocketTimeoutException timeout =
        new SocketTimeoutException(
            method + " " + hostPort + ": nothing sent or received for " + readTimeoutMs + " ms");
    timeout.initCause(cause);
    return timeout;
  }

  private static byte[] head(
      String hostPort, String method, String pathAndQuery, ByteBuf body, String... headers) {
    StringBuilder b = new StringBuilder(160);
    b.append(method).append(' ').append(pathAndQuery).append(" HTTP/1.1\r\n");
    b.append("Host: ").append(hostPort).append("\r\n");
    b.append("Content-Length: ").append(body == null ? 0 : body.readableBytes()).append("\r\n");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    b.append("\r\n");
    return b.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private Answer read(Connection c, int maxBody, ByteBufAllocator alloc) throws IOException {
    Inbound in = c.in;
    String status = line(in);
    if (status == null) {
      throw new EOFException("connection closed before an answer");
    }
    String[] parts = status.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP/1.x answer: " + status);
    }
    int code;
    try {
      code = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IOException("not an HTTP/1.x answer: " + status);
    }
    long length = -1;
    boolean chunked = false;
    boolean keepAlive = parts[0].equals("HTTP/1.1");
    int headBytes = status.length();
    for (String h; (h = line(in)) != null && !h.isEmpty(); ) {
      headBytes += h.length();
      if (headBytes > MAX_HEAD) {
        throw new IOException("answer headers longer than " + MAX_HEAD + " bytes");
      }
      int colon = h.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> {
          try {
            length = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new IOException("bad Content-Length: " + value);
          }
        }
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> {
          String v = value.toLowerCase(Locale.ROOT);
          if (v.contains("close")) {
            keepAlive = false;
          } else if (v.contains("keep-alive")) {
            keepAlive = true;
          }
        }
        default -> {}
      }
    }
    Body body = new Body(maxBody, length, code >= 200 && code < 300 ? alloc : null);
    try {
      if (chunked) {
        while (true) {
          String size = line(in);
          if (size == null) {
            throw new EOFException("chunked answer ended early");
          }
          int semi = size.indexOf(';');
          long n;
          try {
            n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
          } catch (NumberFormatException e) {
            throw new IOException("bad chunk size: " + size);
          }
          if (n == 0) {
            while (true) { // trailers
              String t = line(in);
              if (t == null || t.isEmpty()) {
                break;
              }
            }
            break;
          }
          body.copy(in, n);
          line(in); // the CRLF after the chunk
        }
      } else if (length >= 0) {
        body.copy(in, length);
      } else if (code != 204 && code != 304 && code >= 200) {
        body.copy(in, Long.MAX_VALUE); // to the end of the connection
        keepAlive = false;
      }
    } catch (IOException | RuntimeException e) {
      body.release();
      throw e;
    }
    c.keepAlive = keepAlive;
    return new Answer(code, body);
  }

  /** Collects up to {@code max} bytes, reading (and dropping) the rest. */
  private static final class Body {
    private final int max;
    private final ByteBufAllocator alloc;
    private final long expected;
    private ByteArrayOutputStream kept; // made on first use, as most bodies never need it
    private byte[] buffer;
    private byte[] whole;
    private ByteBuf direct;

    /**
     * {@code expected} is the Content-Length, or -1: a known length is kept in one array, or with
     * {@code alloc} in one buffer from it.
     */
    Body(int max, long expected, ByteBufAllocator alloc) {
      this.max = max;
      this.alloc = alloc;
      this.expected = expected;
    }

    private ByteArrayOutputStream kept() {
      if (kept == null) {
        kept = new ByteArrayOutputStream(expected > max ? max : 32);
      }
      return kept;
    }

    private int keptSize() {
      return kept == null ? 0 : kept.size();
    }

    void copy(Inbound in, long n) throws IOException {
      if (alloc != null && direct == null && keptSize() == 0 && whole == null && n <= max) {
        ByteBuf into = alloc.directBuffer((int) n);
        try {
          in.readFully(into, (int) n);
        } catch (IOException | RuntimeException e) {
          into.release();
          throw e;
        }
        direct = into;
        return;
      }
      if (direct != null) {
        kept().write(ByteBufUtil.getBytes(direct), 0, direct.readableBytes());
        direct.release();
        direct = null;
      }
      if (keptSize() == 0 && whole == null && n <= max && n < Integer.MAX_VALUE) {
        byte[] all = in.readNBytes((int) n);
        if (all.length < n) {
          throw new EOFException("answer body ended " + (n - all.length) + " bytes early");
        }
        whole = all;
        return;
      }
      if (whole != null) {
        kept().write(whole, 0, whole.length);
        whole = null;
      }
      if (buffer == null) {
        buffer = new byte[8192];
      }
      long left = n;
      while (left > 0) {
        int r = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (r < 0) {
          if (n == Long.MAX_VALUE) {
            return;
          }
          throw new EOFException("answer body ended " + left + " bytes early");
        }
        int keep = Math.min(r, max - keptSize());
        if (keep > 0) {
          kept().write(buffer, 0, keep);
        }
        left -= r;
      }
    }

    byte[] bytes() {
      return whole != null ? whole : kept == null ? new byte[0] : kept.toByteArray();
    }

    /** Drops a buffer the body was read into, after a failure. */
    void release() {
      if (direct != null) {
        direct.release();
        direct = null;
      }
    }

    /** The body in a buffer the caller releases. */
    ByteBuf buffer() {
      return direct != null ? direct : Unpooled.wrappedBuffer(bytes());
    }
  }

  /** A line without its CRLF (or LF); null at the end of the stream before any byte. */
  private static String line(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder(64);
    while (true) {
      int ch = in.read();
      if (ch < 0) {
        if (b.length() == 0) {
          return null;
        }
        throw new EOFException("answer ended inside a line");
      }
      if (ch == '\n') {
        int n = b.length();
        if (n > 0 && b.charAt(n - 1) == '\r') {
          b.setLength(n - 1);
        }
        return b.toString();
      }
      if (b.length() >= MAX_HEAD) {
        throw new IOException("answer line longer than " + MAX_HEAD + " bytes");
      }
      b.append((char) ch);
    }
  }

  private Connection connect(String hostPort) throws IOException {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IOException("not host:port: " + hostPort);
    }
    String host = hostPort.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IOException("not host:port: " + hostPort);
    }
    SocketChannel channel = SocketChannel.open();
    try {
      Socket s = channel.socket();
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
      return new Connection(channel, open);
    } catch (IOException e) {
      channel.close();
      throw e;
    }
  }

  private synchronized Connection take(String hostPort) {
    ArrayDeque<Connection> q = idle.get(hostPort);
    return q == null ? null : q.pollLast();
  }

  private void give(String hostPort, Connection c) {
    synchronized (this) {
      if (!closed) {
        ArrayDeque<Connection> q = idle.computeIfAbsent(hostPort, h -> new ArrayDeque<>());
        if (q.size() < MAX_IDLE_PER_HOST) {
          q.addLast(c);
          return;
        }
      }
    }
    c.close();
  }

  @Override
  public void close() {
    watch.cancel(false);
    synchronized (this) {
      closed = true;
      for (ArrayDeque<Connection> q : idle.values()) {
        for (Connection c : q) {
          c.close();
        }
      }
      idle.clear();
    }
  }
}
