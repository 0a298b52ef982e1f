package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;

/** A plain TCP connection to a broker, for sending bytes no real client would send. */
final class RawConnection implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  private RawConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  static RawConnection open(String host, int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(host, port), 10_000);
    socket.setTcpNoDelay(true);
    return new RawConnection(socket);
  }

  /** Writes the bytes as they are, without a size prefix. */
  void write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Writes the payload prefixed with its int32 size, as Kafka frames every request. */
  void writeFrame(ByteBuffer payload) throws IOException {
    ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
    frame.putInt(payload.remaining()).put(payload.duplicate()).flip();
    write(frame.array());
  }

  /**
   * Waits for the broker's reaction: a response frame (its bytes after the size), or empty if the
   * broker closed the connection. Fails the test if the broker does neither within {@code timeout}.
   */
  Optional<ByteBuffer> awaitFrameOrClose(Duration timeout) throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
    try {
      int size = in.readInt();
      if (size < 0 || size > 64 << 20) {
        fail("response frame of " + size + " bytes");
      }
      byte[] body = new byte[size];
      in.readFully(body);
      return Optional.of(ByteBuffer.wrap(body));
    } catch (EOFException | SocketException closed) {
      return Optional.empty();
    } catch (SocketTimeoutException e) {
      fail("the broker neither answered nor closed the connection within " + timeout);
      return Optional.empty();
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
