package io.kelp.gateway.testing;

import io.kelp.codec.message.ApiMessageTypes;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.codec.wire.RequestHeader;
import io.kelp.codec.wire.ResponseHeader;
import io.kelp.codec.wire.WireReader;
import io.kelp.codec.wire.WireWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A bare Kafka protocol client over a blocking socket, for requests the Java clients cannot send
 * (old or exact versions, corrupt records, raw bytes).
 */
public final class WireClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private int correlationId;

  public WireClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(20000);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  /** Sends {@code body} at {@code version} and returns the response body. */
  @SuppressWarnings("unchecked")
  public <T extends ApiMessage> T call(ApiMessage body, short version) throws IOException {
    int id = send(body, version);
    return (T) receive(body.apiKey(), version, id);
  }

  /** Sends a request without waiting; returns its correlation id. */
  public int send(ApiMessage body, short version) throws IOException {
    ApiMessageType api = ApiMessageTypes.forKey(body.apiKey());
    ByteBuf buf = Unpooled.buffer();
    try {
      buf.writeInt(0);
      WireWriter w = new WireWriter(buf);
      int id = ++correlationId;
      new RequestHeader(body.apiKey(), version, id, "wire-client")
          .write(w, api.requestHeaderVersion(version));
      body.write(w, version);
      buf.setInt(0, buf.readableBytes() - 4);
      sendRaw(buf);
      return id;
    } finally {
      buf.release();
    }
  }

  public void sendRaw(ByteBuf bytes) throws IOException {
    byte[] b = new byte[bytes.readableBytes()];
    bytes.getBytes(bytes.readerIndex(), b);
    out.write(b);
    out.flush();
  }

  /** Reads the next response, which must carry {@code expectedId}. */
  public ApiMessage receive(short apiKey, short version, int expectedId) throws IOException {
    ApiMessageType api = ApiMessageTypes.forKey(apiKey);
    int size = in.readInt();
    byte[] b = new byte[size];
    in.readFully(b);
    WireReader reader = new WireReader(Unpooled.wrappedBuffer(b));
    int id = ResponseHeader.read(reader, api.responseHeaderVersion(version));
    if (id != expectedId) {
      throw new IOException("correlation id " + id + ", expected " + expectedId);
    }
    ApiMessage response = api.newResponse();
    response.read(reader, version);
    if (!reader.ok()) {
      throw new IOException("unreadable response: " + reader.error());
    }
    return response;
  }

  /** Whether the broker has closed the connection (reads end of stream within the timeout). */
  public boolean closedByBroker() throws IOException {
    socket.setSoTimeout(10000);
    try {
      return in.read() < 0;
    } catch (EOFException e) {
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      // a reset is a close too
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
