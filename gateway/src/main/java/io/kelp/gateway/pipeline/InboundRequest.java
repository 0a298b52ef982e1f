package io.kelp.gateway.pipeline;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.codec.wire.RequestHeader;
import io.kelp.gateway.api.ApiHandler;
import io.netty.buffer.ByteBuf;

/**
 * A parsed request on its way from the decoder to the dispatcher.
 *
 * <p>Buffer ownership: {@code frame} is a retained slice that the request owns; records fields of
 * {@code body} are slices of it. Whoever consumes the request releases the frame once the handler
 * is done with the body.
 *
 * @param responseVersion the version to answer at (the request's, or 0 for ApiVersions fallback)
 * @param frameBytes the frame's size, for in-flight accounting
 * @param arrivalNanos when the frame was decoded, for latency metrics
 */
public record InboundRequest(
    RequestHeader header,
    ApiMessageType api,
    ApiMessage body,
    ApiHandler handler,
    short responseVersion,
    ByteBuf frame,
    int frameBytes,
    long arrivalNanos) {}
