package io.kelp.gateway.pipeline;

import io.kelp.codec.message.ApiVersionsRequest;
import io.kelp.codec.message.ParsedRequest;
import io.kelp.codec.message.Requests;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.ApiHandlers;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns frames into {@link InboundRequest}s, or closes the connection the way Kafka does:
 *
 * <ul>
 *   <li>a header that cannot be read: close;
 *   <li>an API key without a handler (unknown, or known to the codec but not served): close;
 *   <li>ApiVersions at a version we do not know: answered, at v0, with UNSUPPORTED_VERSION and the
 *       full table (never closed, or librdkafka falls back to ancient protocol versions);
 *   <li>any other version outside what the handler serves, or a body that cannot be read: close.
 * </ul>
 *
 * Every close logs one line naming the client and the problem.
 *
 * <p>Buffer ownership: takes ownership of each frame; passes it on inside the request, or releases
 * it when the request is refused.
 */
public final class RequestDecoder extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(RequestDecoder.class);

  private final ApiHandlers handlers;
  private boolean closing;

  public RequestDecoder(ApiHandlers handlers) {
    this.handlers = handlers;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf frame)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (closing) {
      // Frames that arrived in the same read as the one that closed the connection.
      frame.release();
      return;
    }
    long arrival = System.nanoTime();
    int frameBytes = frame.readableBytes();
    InboundRequest request = null;
    try {
      request = decode(ctx, frame, frameBytes, arrival);
    } finally {
      if (request == null) {
        frame.release();
      }
    }
    if (request != null) {
      ctx.fireChannelRead(request);
    }
  }

  private InboundRequest decode(ChannelHandlerContext ctx, ByteBuf frame, int size, long arrival) {
    ParsedRequest parsed = Requests.parse(frame);
    ApiHandler handler =
        parsed.status() == ParsedRequest.Status.MALFORMED_HEADER
            ? null
            : handlers.get(parsed.header().apiKey());
    switch (parsed.status()) {
      case OK -> {
        short version = parsed.header().apiVersion();
        if (handler == null) {
          return refuse(ctx, parsed, "API key " + parsed.header().apiKey() + " is not served");
        }
        if (version < handler.minServedVersion() || version > handler.maxVersion()) {
          return refuse(
              ctx,
              parsed,
              parsed.api()
                  + " version "
                  + version
                  + " is not served (served: "
                  + handler.minServedVersion()
                  + "-"
                  + handler.maxVersion()
                  + ")");
        }
        return new InboundRequest(
            parsed.header(), parsed.api(), parsed.body(), handler, version, frame, size, arrival);
      }
      case UNSUPPORTED_VERSION -> {
        if (parsed.header().apiKey() == ApiMessageType.API_VERSIONS_KEY && handler != null) {
          // Kafka answers an ApiVersions it cannot parse with a v0 body listing what it supports.
          return new InboundRequest(
              parsed.header(),
              parsed.api(),
              new ApiVersionsRequest(),
              handler,
              (short) 0,
              frame,
              size,
              arrival);
        }
        return refuse(ctx, parsed, parsed.error());
      }
      default -> {
        return refuse(ctx, parsed, parsed.status() + ": " + parsed.error());
      }
    }
  }

  private InboundRequest refuse(ChannelHandlerContext ctx, ParsedRequest parsed, String why) {
    String who =
        parsed.status() == ParsedRequest.Status.MALFORMED_HEADER
            ? ""
            : " (client id " + parsed.header().clientId() + ")";
    LOG.warn("Closing connection from {}{}: {}", ctx.channel().remoteAddress(), who, why);
    closing = true;
    ctx.close();
    return null;
  }
}
