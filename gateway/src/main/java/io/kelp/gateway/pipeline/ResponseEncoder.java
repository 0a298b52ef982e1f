package io.kelp.gateway.pipeline;

import io.kelp.codec.wire.ResponseHeader;
import io.kelp.codec.wire.WireWriter;
import io.kelp.gateway.metrics.KelpMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frames responses: an int32 size, the response header (v0, or v1 for flexible versions; always v0
 * for ApiVersions) and the body. Records of at least {@value #ZERO_COPY_THRESHOLD} bytes are not
 * copied: the frame becomes a composite buffer that refers to them. Stateless and shared by every
 * connection.
 *
 * <p>Buffer ownership: releases the response's owned buffers after encoding (the frame holds its
 * own references to what it shares); the frame itself goes to the channel, which releases it once
 * written.
 */
@Sharable
public final class ResponseEncoder extends ChannelOutboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ResponseEncoder.class);
  static final int ZERO_COPY_THRESHOLD = 4096;

  private final KelpMetrics metrics;

  public ResponseEncoder(KelpMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof OutboundResponse response)) {
      ctx.write(msg, promise);
      return;
    }
    ByteBuf frame;
    try {
      frame = encode(ctx, response);
    } catch (RuntimeException e) {
      // A response the codec refuses is a bug in its handler; the client cannot be answered.
      LOG.error(
          "Cannot encode {} v{} response to {}; closing the connection",
          response.api(),
          response.version(),
          ctx.channel().remoteAddress(),
          e);
      promise.tryFailure(e);
      ctx.close();
      return;
    } finally {
      response.release();
    }
    metrics.bytesOut(frame.readableBytes());
    ctx.write(frame, promise);
  }

  private static ByteBuf encode(ChannelHandlerContext ctx, OutboundResponse response) {
    short version = response.version();
    short headerVersion = response.api().responseHeaderVersion(version);
    int size = (headerVersion >= 1 ? 5 : 4) + response.body().size(version);
    WireWriter writer = WireWriter.zeroCopy(ctx.alloc(), ZERO_COPY_THRESHOLD);
    try {
      writer.writeInt32(size);
      ResponseHeader.write(writer, response.correlationId(), headerVersion);
      response.body().write(writer, version);
    } catch (RuntimeException e) {
      writer.abandon();
      throw e;
    }
    return writer.finish();
  }
}
