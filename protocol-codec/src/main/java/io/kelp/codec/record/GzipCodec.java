package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** gzip (RFC 1952) through the JDK's zlib. */
final class GzipCodec {
  private static final int BUFFER_SIZE = 8 * 1024;

  private GzipCodec() {}

  static ByteBuf compress(ByteBuf src, ByteBufAllocator alloc) {
    ByteBuf out = alloc.heapBuffer(Math.max(64, src.readableBytes() / 2));
    try {
      try (GZIPOutputStream gzip =
          new GZIPOutputStream(new ByteBufOutputStream(out), BUFFER_SIZE)) {
        src.getBytes(src.readerIndex(), gzip, src.readableBytes());
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
    ByteBuf out = CappedOutput.allocate(alloc, src.readableBytes() * 4, maxSize);
    try (GZIPInputStream gzip =
        new GZIPInputStream(new ByteBufInputStream(src.duplicate()), BUFFER_SIZE)) {
      CappedOutput.drain(gzip, out, maxSize, Compression.GZIP);
      return out;
    } catch (IOException e) {
      out.release();
      throw CappedOutput.corrupt(Compression.GZIP, e);
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }
}
