package io.kelp.gateway.pipeline;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into request frames: an int32 size, then that many bytes. A negative size
 * or one above the limit ({@code socket.request.max.bytes}) closes the connection with a log line;
 * nothing of such a frame is buffered.
 *
 * <p>Buffer ownership: each frame passed on is a retained slice of the cumulation; the next handler
 * owns it and must release it.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

  private final int maxFrameBytes;
  private boolean discarding;

  public FrameDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (discarding) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < 4) {
      return;
    }
    int size = in.getInt(in.readerIndex());
    if (size < 0 || size > maxFrameBytes) {
      LOG.warn(
          "Closing connection from {}: request frame of {} bytes is {} (socket.request.max.bytes"
              + " is {})",
          ctx.channel().remoteAddress(),
          size,
          size < 0 ? "negative" : "too large",
          maxFrameBytes);
      discarding = true;
      in.skipBytes(in.readableBytes());
      ctx.close();
      return;
    }
    if (in.readableBytes() - 4 < size) {
      return;
    }
    in.skipBytes(4);
    out.add(in.readRetainedSlice(size));
  }
}
