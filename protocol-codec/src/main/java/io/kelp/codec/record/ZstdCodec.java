package io.kelp.codec.record;

import com.github.luben.zstd.ZstdException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Zstandard frames through zstd-jni, streamed both ways so neither side needs the whole input as an
 * array. The decoder keeps zstd's default window limit (128 MiB), which bounds the native memory a
 * hostile frame header can ask for.
 */
final class ZstdCodec {
  // Kafka's default level for zstd.
  private static final int LEVEL = 3;

  private ZstdCodec() {}

  static ByteBuf compress(ByteBuf src, ByteBufAllocator alloc) {
    ByteBuf out = alloc.heapBuffer(Math.max(64, src.readableBytes() / 2));
    try {
      try (ZstdOutputStreamNoFinalizer zstd =
          new ZstdOutputStreamNoFinalizer(new ByteBufOutputStream(out), LEVEL)) {
        src.getBytes(src.readerIndex(), zstd, src.readableBytes());
      }
      return out;
    } catch (IOException e) {
      out.release();
      // Writing into a heap buffer cannot fail with an I/O error.
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  static ByteBuf decompress(ByteBuf src, int maxSize, ByteBufAllocator alloc) {
    if (!src.isReadable()) {
      // zstd-jni reads no input as no output; a compressed records section always has a frame.
      throw CappedOutput.corrupt(Compression.ZSTD, "no frame");
    }
    ByteBuf out = CappedOutput.allocate(alloc, src.readableBytes() * 4, maxSize);
    try (ZstdInputStreamNoFinalizer zstd =
        new ZstdInputStreamNoFinalizer(new ByteBufInputStream(src.duplicate()))) {
      CappedOutput.drain(zstd, out, maxSize, Compression.ZSTD);
      return out;
    } catch (IOException | ZstdException e) {
      out.release();
      throw CappedOutput.corrupt(Compression.ZSTD, e);
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }
}
