package io.kelp.seaweed;

import io.netty.buffer.ByteBuf;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Set;

/** The connections of {@link PlainHttp}: a kept-alive socket and the stream its answers come on. */
final class HttpConnections {
  private HttpConnections() {}

  /**
   * A kept-alive connection. Requests are written with the channel's gathering write, straight from
   * the caller's (usually direct) buffers; answers are read with the channel's reads (see {@link
   * Inbound}). An exchange runs between {@link #begin} and {@link #end}; the watchdog closes the
   * connection only inside one, so a connection back in the pool is never closed as stalled.
   */
  static final class Connection {
    final SocketChannel channel;
    final Inbound in;
    private final Set<Connection> open;
    boolean keepAlive;

    /** When the exchange under way last sent or received bytes. */
    volatile long movedAt;

    private boolean busy; // guarded by this
    private boolean timedOut; // guarded by this

    Connection(SocketChannel channel, Set<Connection> open) {
      this.channel = channel;
      this.open = open;
      this.in = new Inbound(this);
      open.add(this);
    }

    /** Writes {@code head} and then {@code body}'s readable bytes (if any), all of them. */
    void write(byte[] head, ByteBuf body) throws IOException {
      ByteBuffer[] buffers;
      if (body != null && body.isReadable()) {
        ByteBuffer[] parts = body.nioBuffers(body.readerIndex(), body.readableBytes());
        buffers = new ByteBuffer[parts.length + 1];
        System.arraycopy(parts, 0, buffers, 1, parts.length);
      } else {
        buffers = new ByteBuffer[1];
      }
      buffers[0] = ByteBuffer.wrap(head);
      long left = 0;
      for (ByteBuffer b : buffers) {
        left += b.remaining();
      }
      while (left > 0) {
        long n = channel.write(buffers);
        if (n > 0) {
          movedAt = System.nanoTime();
          left -= n;
        }
      }
    }

    synchronized void begin() {
      busy = true;
      timedOut = false;
      movedAt = System.nanoTime();
    }

    /** Ends the exchange: false if the watchdog closed the connection during it. */
    synchronized boolean end() {
      busy = false;
      return !timedOut;
    }

    synchronized boolean timedOut() {
      return timedOut;
    }

    /** Closes the connection if an exchange is under way and has not moved for {@code nanos}. */
    synchronized void expireIfStalled(long now, long nanos) {
      if (busy && now - movedAt > nanos) {
        timedOut = true;
        close();
      }
    }

    void close() {
      open.remove(this);
      try {
        channel.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  /**
   * The answer side of a connection: an unsynchronized stream over the channel's blocking reads,
   * through a direct buffer the head and small bodies are parsed from, and {@link #readFully} for a
   * body read straight into the caller's buffer.
   */
  static final class Inbound extends InputStream {
    private final Connection c;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(16 << 10).flip();

    Inbound(Connection c) {
      this.c = c;
    }

    /** Refills the empty buffer: the bytes read, or -1 at the end of the stream. */
    private int fill() throws IOException {
      buffer.clear();
      int r;
      try {
        r = c.channel.read(buffer);
      } finally {
        buffer.flip();
      }
      if (r > 0) {
        c.movedAt = System.nanoTime();
      }
      return r;
    }

    @Override
    public int read() throws IOException {
      if (!buffer.hasRemaining() && fill() < 0) {
        return -1;
      }
      return buffer.get() & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (!buffer.hasRemaining() && fill() < 0) {
        return -1;
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(b, off, n);
      return n;
    }

    /** Reads exactly {@code n} bytes into {@code into}, the buffered ones first. */
    void readFully(ByteBuf into, int n) throws IOException {
      int buffered = Math.min(n, buffer.remaining());
      if (buffered > 0) {
        int limit = buffer.limit();
        buffer.limit(buffer.position() + buffered);
        into.writeBytes(buffer);
        buffer.limit(limit);
      }
      for (int left = n - buffered; left > 0; ) {
        int r = into.writeBytes(c.channel, left);
        if (r < 0) {
          throw new EOFException("answer body ended " + left + " bytes early");
        }
        if (r > 0) {
          c.movedAt = System.nanoTime();
          left -= r;
        }
      }
    }
  }
}
