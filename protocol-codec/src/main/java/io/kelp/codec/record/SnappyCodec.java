package io.kelp.codec.record;

import io.kelp.codec.record.CappedOutput.HeapBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyError;

/**
 * Snappy in the two shapes Kafka clients send. The Java client writes the xerial/snappy-java stream
 * framing; librdkafka and franz-go write one raw snappy block. Reading tells them apart by the
 * framing's magic, which cannot begin a valid raw block of records.
 *
 * <pre>
 * xerial framing (all integers big-endian):
 *   0                8           12          16
 *   +----------------+-----------+-----------+--------+------------+--------+----
 *   | 0x82 SNAPPY 00 | version 1 | compat. 1 | len i32| raw block  | len i32| ...
 *   +----------------+-----------+-----------+--------+------------+--------+----
 * raw block: uncompressed length (unsigned varint), then snappy elements.
 * </pre>
 *
 * A framed stream may hold several streams back to back (snappy-java reads them so), so a magic in
 * place of a block length starts a new header.
 */
final class SnappyCodec {
  private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
  private static final int HEADER_SIZE = MAGIC.length + 8;
  private static final int VERSION = 1;
  private static final int MIN_COMPATIBLE_VERSION = 1;
  // snappy-java's default block size, so blocks look like the Java client's.
  private static final int BLOCK_SIZE = 32 * 1024;

  private SnappyCodec() {}

  static ByteBuf compress(ByteBuf src, ByteBufAllocator alloc) {
    HeapBytes in = HeapBytes.of(src);
    int blocks = Math.max(1, (in.length() + BLOCK_SIZE - 1) / BLOCK_SIZE);
    ByteBuf out =
        alloc.heapBuffer(HEADER_SIZE + blocks * (4 + Snappy.maxCompressedLength(BLOCK_SIZE)));
    try {
      out.writeBytes(MAGIC).writeInt(VERSION).writeInt(MIN_COMPATIBLE_VERSION);
      for (int done = 0; done < in.length(); done += BLOCK_SIZE) {
        int n = Math.min(BLOCK_SIZE, in.length() - done);
        int lengthAt = out.writerIndex();
        out.writeInt(0);
        int written =
            Snappy.rawCompress(
                in.array(),
                in.offset() + done,
                n,
                out.array(),
                out.arrayOffset() + out.writerIndex());
        out.setInt(lengthAt, written);
        out.writerIndex(out.writerIndex() + written);
      }
      return out;
    } catch (IOException e) {
      out.release();
      throw new UncheckedIOException(e);
    }
  }

  static ByteBuf decompress(ByteBuf src, int maxSize, ByteBufAllocator alloc) {
    HeapBytes in = HeapBytes.of(src);
    ByteBuf out = CappedOutput.allocate(alloc, in.length() * 2, maxSize);
    try {
      if (startsWithMagic(in, 0)) {
        readFramed(in, out, maxSize);
      } else {
        readBlock(in.array(), in.offset(), in.length(), out, maxSize, "raw block");
      }
      return out;
    } catch (IOException | SnappyError e) {
      out.release();
      throw CappedOutput.corrupt(Compression.SNAPPY, e);
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  private static void readFramed(HeapBytes in, ByteBuf out, int maxSize) throws IOException {
    int pos = 0;
    while (pos < in.length()) {
      if (startsWithMagic(in, pos)) {
        if (in.length() - pos < HEADER_SIZE) {
          throw CappedOutput.corrupt(Compression.SNAPPY, "truncated stream header at byte " + pos);
        }
        int compatible = readInt(in, pos + MAGIC.length + 4);
        if (compatible < MIN_COMPATIBLE_VERSION) {
          throw CappedOutput.corrupt(
              Compression.SNAPPY, "unsupported stream version " + compatible + " at byte " + pos);
        }
        pos += HEADER_SIZE;
        continue;
      }
      if (in.length() - pos < 4) {
        throw CappedOutput.corrupt(Compression.SNAPPY, "truncated block length at byte " + pos);
      }
      int length = readInt(in, pos);
      pos += 4;
      if (length < 0 || length > in.length() - pos) {
        throw CappedOutput.corrupt(
            Compression.SNAPPY,
            String.format(
                "block length %d at byte %d but %d bytes left",
                length, pos - 4, in.length() - pos));
      }
      if (length > 0) {
        readBlock(in.array(), in.offset() + pos, length, out, maxSize, "block at byte " + pos);
      }
      pos += length;
    }
  }

  /** Inflates one raw block after checking its declared size against the room left. */
  private static void readBlock(
      byte[] array, int offset, int length, ByteBuf out, int maxSize, String where)
      throws IOException {
    if (length == 0) {
      throw CappedOutput.corrupt(Compression.SNAPPY, "empty " + where);
    }
    long declared = Integer.toUnsignedLong(Snappy.uncompressedLength(array, offset, length));
    if (declared > maxSize - out.writerIndex()) {
      throw CappedOutput.tooLarge(Compression.SNAPPY, maxSize);
    }
    out.ensureWritable((int) declared);
    int n =
        Snappy.rawUncompress(
            array, offset, length, out.array(), out.arrayOffset() + out.writerIndex());
    if (n != declared) {
      throw CappedOutput.corrupt(
          Compression.SNAPPY, where + " declares " + declared + " bytes but holds " + n);
    }
    out.writerIndex(out.writerIndex() + n);
  }

  private static boolean startsWithMagic(HeapBytes in, int pos) {
    if (in.length() - pos < MAGIC.length) {
      return false;
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (in.array()[in.offset() + pos + i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  private static int readInt(HeapBytes in, int pos) {
    byte[] a = in.array();
    int i = in.offset() + pos;
    return (a[i] & 0xff) << 24
        | (a[i + 1] & 0xff) << 16
        | (a[i + 2] & 0xff) << 8
        | (a[i + 3] & 0xff);
  }
}
