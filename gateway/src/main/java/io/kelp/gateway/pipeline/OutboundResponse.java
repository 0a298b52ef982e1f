package io.kelp.gateway.pipeline;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.netty.util.ReferenceCounted;
import java.util.List;

/**
 * A response body ready to be framed and written.
 *
 * <p>Buffer ownership: {@code owned} are buffers the body refers to (Fetch records); the encoder
 * releases them after encoding, or whoever drops the response instead.
 */
public record OutboundResponse(
    int correlationId,
    ApiMessageType api,
    short version,
    ApiMessage body,
    List<ReferenceCounted> owned) {

  /** Releases the buffers the body refers to. */
  public void release() {
    for (ReferenceCounted r : owned) {
      r.release();
    }
  }
}
