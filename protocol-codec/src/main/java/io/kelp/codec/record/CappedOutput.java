package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.io.InputStream;

/** Shared pieces of the codecs: bounded output buffers, array access, error messages. */
final class CappedOutput {
  private static final int CHUNK = 64 * 1024;
  // An InputStream should block rather than return 0; give up if a decoder keeps doing it anyway.
  private static final int MAX_EMPTY_READS = 16;

  private CappedOutput() {}

  /** A heap buffer that can never grow past {@code maxSize} bytes. */
  static ByteBuf allocate(ByteBufAllocator alloc, int expected, int maxSize) {
    return alloc.heapBuffer(Math.max(0, Math.min(expected, maxSize)), maxSize);
  }

  static InvalidRecordException tooLarge(Compression codec, int maxSize) {
    return new InvalidRecordException(
        codec.wireName() + " data inflates past the limit of " + maxSize + " bytes");
  }

  static InvalidRecordException corrupt(Compression codec, String detail) {
    return new InvalidRecordException("corrupt " + codec.wireName() + " data: " + detail);
  }

  static InvalidRecordException corrupt(Compression codec, Throwable cause) {
    String detail = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName();
    return new InvalidRecordException("corrupt " + codec.wireName() + " data: " + detail, cause);
  }

  /**
   * Reads a decoding stream to its end into {@code out}, failing as soon as it yields more than
   * {@code maxSize} bytes in total.
   */
  static void drain(InputStream in, ByteBuf out, int maxSize, Compression codec)
      throws IOException {
    int emptyReads = 0;
    while (true) {
      int room = maxSize - out.writerIndex();
      if (room == 0) {
        if (in.read() != -1) {
          throw tooLarge(codec, maxSize);
        }
        return;
      }
      out.ensureWritable(Math.min(room, CHUNK));
      int n = out.writeBytes(in, Math.min(room, out.writableBytes()));
      if (n < 0) {
        return;
      }
      if (n == 0 && ++emptyReads > MAX_EMPTY_READS) {
        throw corrupt(codec, "the decoder stopped making progress");
      }
    }
  }

  /** A byte array holding a buffer's readable bytes: its backing array when it has one. */
  record HeapBytes(byte[] array, int offset, int length) {
    static HeapBytes of(ByteBuf src) {
      int length = src.readableBytes();
      if (src.hasArray()) {
        return new HeapBytes(src.array(), src.arrayOffset() + src.readerIndex(), length);
      }
      return new HeapBytes(ByteBufUtil.getBytes(src), 0, length);
    }
  }
}
