package io.kelp.codec.record;

import io.kelp.codec.record.CappedOutput.HeapBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The LZ4 frame format as Kafka uses it: independent blocks only, no dictionary.
 *
 * <pre>
 * Frame (integers little-endian):
 *   0            4     5    6                 6 or 14
 *   +------------+-----+----+-----------------+----+---------------------+-----------+----------+
 *   | 0x184D2204 | FLG | BD | content size u64| HC | blocks ...          | 0 (int32) | checksum |
 *   |  magic     |     |    | (if FLG bit 3)  |    |                     | end mark  | (FLG b2) |
 *   +------------+-----+----+-----------------+----+---------------------+-----------+----------+
 * FLG: bits 6-7 version (01), bit 5 block independence (must be 1), bit 4 block checksum,
 *      bit 3 content size, bit 2 content checksum, bits 0-1 zero.
 * BD:  bits 4-6 maximum block size 4..7 = 64 KiB, 256 KiB, 1 MiB, 4 MiB; other bits zero.
 * HC:  second byte of XXH32(FLG .. end of descriptor, seed 0).
 * Block: size int32 (high bit set = stored uncompressed), data, XXH32 of data if FLG bit 4.
 * </pre>
 *
 * Writing matches Kafka's clients: 64 KiB blocks, no checksums besides HC, incompressible blocks
 * stored as they are. Like Kafka, reading skips the content checksum (the batch CRC covers the
 * compressed bytes) and ignores bytes after the frame.
 */
final class Lz4FrameCodec {
  private static final int MAGIC = 0x184D2204;
  private static final int VERSION = 1;
  private static final int FLG_BLOCK_INDEPENDENCE = 1 << 5;
  private static final int FLG_BLOCK_CHECKSUM = 1 << 4;
  private static final int FLG_CONTENT_SIZE = 1 << 3;
  private static final int FLG_CONTENT_CHECKSUM = 1 << 2;
  private static final int BD_64KB = 4;
  private static final int BLOCK_SIZE = 1 << (2 * BD_64KB + 8);
  private static final int UNCOMPRESSED_BIT = 0x80000000;

  private Lz4FrameCodec() {}

  // Loaded on first use, so a broker that never sees lz4 never loads its native code.
  private static final class Lz4 {
    static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
    static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();
    static final XXHash32 HASH = XXHashFactory.fastestInstance().hash32();
  }

  static ByteBuf compress(ByteBuf src, ByteBufAllocator alloc) {
    HeapBytes in = HeapBytes.of(src);
    int blocks = (in.length() + BLOCK_SIZE - 1) / BLOCK_SIZE;
    int maxBlock = Lz4.COMPRESSOR.maxCompressedLength(BLOCK_SIZE);
    ByteBuf out = alloc.heapBuffer(7 + blocks * (4 + maxBlock) + 4);
    byte[] descriptor = {(byte) (VERSION << 6 | FLG_BLOCK_INDEPENDENCE), (byte) (BD_64KB << 4)};
    out.writeIntLE(MAGIC).writeBytes(descriptor).writeByte(headerChecksum(descriptor, 0, 2));
    for (int done = 0; done < in.length(); done += BLOCK_SIZE) {
      int n = Math.min(BLOCK_SIZE, in.length() - done);
      int sizeAt = out.writerIndex();
      out.writeIntLE(0);
      int dataAt = out.arrayOffset() + out.writerIndex();
      int written =
          Lz4.COMPRESSOR.compress(in.array(), in.offset() + done, n, out.array(), dataAt, maxBlock);
      if (written >= n) {
        out.setBytes(out.writerIndex(), in.array(), in.offset() + done, n);
        out.setIntLE(sizeAt, n | UNCOMPRESSED_BIT);
        written = n;
      } else {
        out.setIntLE(sizeAt, written);
      }
      out.writerIndex(out.writerIndex() + written);
    }
    return out.writeIntLE(0);
  }

  static ByteBuf decompress(ByteBuf src, int maxSize, ByteBufAllocator alloc) {
    HeapBytes in = HeapBytes.of(src);
    ByteBuf out = CappedOutput.allocate(alloc, in.length() * 2, maxSize);
    try {
      readFrame(in, out, maxSize);
      return out;
    } catch (LZ4Exception e) {
      out.release();
      throw CappedOutput.corrupt(Compression.LZ4, e);
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  private static void readFrame(HeapBytes in, ByteBuf out, int maxSize) {
    byte[] a = in.array();
    int base = in.offset();
    int end = in.length();
    if (end < 7) {
      throw corrupt("frame of " + end + " bytes is shorter than its header");
    }
    if (intLE(a, base) != MAGIC) {
      throw corrupt("bad frame magic 0x" + Integer.toHexString(intLE(a, base)));
    }
    int flg = a[base + 4] & 0xff;
    int bd = a[base + 5] & 0xff;
    if (flg >>> 6 != VERSION || (flg & 3) != 0) {
      throw corrupt("unsupported frame flags 0x" + Integer.toHexString(flg));
    }
    if ((flg & FLG_BLOCK_INDEPENDENCE) == 0) {
      throw corrupt("dependent blocks are not supported");
    }
    int sizeCode = bd >>> 4 & 7;
    if ((bd & 0x8f) != 0 || sizeCode < 4) {
      throw corrupt("bad block descriptor 0x" + Integer.toHexString(bd));
    }
    int maxBlock = 1 << (2 * sizeCode + 8);
    int pos = (flg & FLG_CONTENT_SIZE) != 0 ? 14 : 6;
    if (end < pos + 1) {
      throw corrupt("frame header truncated");
    }
    if ((a[base + pos] & 0xff) != headerChecksum(a, base + 4, pos - 4)) {
      throw corrupt("frame header checksum mismatch");
    }
    pos++;
    boolean blockChecksum = (flg & FLG_BLOCK_CHECKSUM) != 0;
    byte[] scratch = null;
    while (true) {
      if (end - pos < 4) {
        throw corrupt("truncated before the end mark at byte " + pos);
      }
      int word = intLE(a, base + pos);
      pos += 4;
      if (word == 0) {
        break;
      }
      boolean stored = (word & UNCOMPRESSED_BIT) != 0;
      int size = word & ~UNCOMPRESSED_BIT;
      int trailer = blockChecksum ? 4 : 0;
      if (size > maxBlock || size > end - pos - trailer) {
        throw corrupt(
            String.format(
                "block of %d bytes at byte %d exceeds the maximum or the data", size, pos - 4));
      }
      if (blockChecksum && Lz4.HASH.hash(a, base + pos, size, 0) != intLE(a, base + pos + size)) {
        throw corrupt("block checksum mismatch at byte " + (pos - 4));
      }
      if (stored) {
        append(out, a, base + pos, size, maxSize);
      } else {
        if (scratch == null) {
          scratch = new byte[maxBlock];
        }
        int n = Lz4.DECOMPRESSOR.decompress(a, base + pos, size, scratch, 0, maxBlock);
        append(out, scratch, 0, n, maxSize);
      }
      pos += size + trailer;
    }
    if ((flg & FLG_CONTENT_CHECKSUM) != 0 && end - pos < 4) {
      throw corrupt("content checksum missing");
    }
  }

  private static void append(ByteBuf out, byte[] data, int offset, int length, int maxSize) {
    if (length > maxSize - out.writerIndex()) {
      throw CappedOutput.tooLarge(Compression.LZ4, maxSize);
    }
    out.writeBytes(data, offset, length);
  }

  private static int headerChecksum(byte[] a, int offset, int length) {
    return (Lz4.HASH.hash(a, offset, length, 0) >> 8) & 0xff;
  }

  private static int intLE(byte[] a, int i) {
    return (a[i] & 0xff)
        | (a[i + 1] & 0xff) << 8
        | (a[i + 2] & 0xff) << 16
        | (a[i + 3] & 0xff) << 24;
  }

  private static InvalidRecordException corrupt(String detail) {
    return CappedOutput.corrupt(Compression.LZ4, detail);
  }
}
