package io.kelp.gateway.pipeline;

import io.kelp.codec.message.ApiMessageTypes;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.codec.wire.RequestHeader;
import io.kelp.codec.wire.ResponseHeader;
import io.kelp.codec.wire.WireReader;
import io.kelp.codec.wire.WireWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Builds request frames and reads response frames, as a client would. */
final class WireFrames {
  private WireFrames() {}

  /** A size-prefixed request frame for {@code body} at {@code version}. */
  static ByteBuf request(int correlationId, short version, ApiMessage body) {
    ApiMessageType api = ApiMessageTypes.forKey(body.apiKey());
    ByteBuf out = Unpooled.buffer();
    out.writeInt(0);
    WireWriter w = new WireWriter(out);
    new RequestHeader(body.apiKey(), version, correlationId, "test-client")
        .write(w, api.requestHeaderVersion(version));
    body.write(w, version);
    out.setInt(0, out.readableBytes() - 4);
    return out;
  }

  /** A frame holding only a header v1 with any key and version, and {@code extra} body bytes. */
  static ByteBuf rawRequest(short key, short version, int correlationId, int extra) {
    ByteBuf out = Unpooled.buffer();
    out.writeInt(0);
    new RequestHeader(key, version, correlationId, "test-client")
        .write(new WireWriter(out), (short) 1);
    out.writeZero(extra);
    out.setInt(0, out.readableBytes() - 4);
    return out;
  }

  record Response<T extends ApiMessage>(int correlationId, T body) {}

  /** Reads one response frame (size prefix included) and releases it. */
  @SuppressWarnings("unchecked")
  static <T extends ApiMessage> Response<T> response(ByteBuf frame, short apiKey, short version) {
    try {
      ApiMessageType api = ApiMessageTypes.forKey(apiKey);
      int size = frame.readInt();
      if (size != frame.readableBytes()) {
        throw new AssertionError(
            "size prefix " + size + " but " + frame.readableBytes() + " bytes");
      }
      WireReader reader = new WireReader(frame);
      int correlationId = ResponseHeader.read(reader, api.responseHeaderVersion(version));
      ApiMessage body = api.newResponse();
      body.read(reader, version);
      if (!reader.ok() || frame.isReadable()) {
        throw new AssertionError("bad response: " + reader.error());
      }
      return new Response<>(correlationId, (T) body);
    } finally {
      frame.release();
    }
  }
}
