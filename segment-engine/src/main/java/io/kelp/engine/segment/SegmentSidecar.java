package io.kelp.engine.segment;

import io.kelp.engine.producer.ProducerStateTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The sidecar of a segment, {@code <base>[.c<gen>].index}: everything derived from the segment that
 * a restart would otherwise rebuild by scanning it, written whole (one put) when the segment is
 * sealed, and for the active segment on a clean close. All integers big-endian.
 *
 * <pre>
 *  offset
 *       0 +------------------------------------------+
 *         | magic                 int32  0x4B4C5853  |  "KLXS"
 *       4 | version               int16  1           |
 *       6 | flags                 int16              |  bit 0: sealed
 *       8 | crc                   uint32             |  CRC-32C of byte 12 to the end
 *      12 | baseOffset            int64              |  as in the name
 *      20 | generation            int32              |  as in the name (0: not cleaned)
 *      24 | validLength           int64              |  bytes of whole valid batches in the
 *         |                                          |  segment object; bytes after are never read
 *      32 | lastOffset            int64              |  last offset covered (baseOffset - 1: none)
 *      40 | maxTimestamp          int64              |  -1: none
 *      48 | offsetOfMaxTimestamp  int64              |  base offset of the batch holding it
 *      56 | createdMs             int64              |  broker time the segment was started
 *      64 | offsetEntries         int32  N           |
 *      68 | timeEntries           int32  M           |
 *      72 | producerCount         int32  P           |
 *      76 | N x offset entry                         |
 *         | M x time entry                           |
 *         | P x producer entry                       |
 *         +------------------------------------------+
 *
 *  offset entry (8 bytes): relativeOffset int32, position int32
 *      the batch whose base offset is baseOffset + relativeOffset starts at byte position
 *  time entry (12 bytes): timestamp int64, relativeOffset int32
 *      no batch before baseOffset + relativeOffset has a max timestamp above timestamp
 *  producer entry (31 bytes + 32 per batch): the producer state as of the end of the segment
 *      producerId int64, epoch int16, coordinatorEpoch int32, currentTxnFirstOffset int64,
 *      lastTimestamp int64, batchCount int8 (at most 5), then per batch, oldest first:
 *      firstSequence int32, lastSequence int32, firstOffset int64, lastOffset int64,
 *      timestamp int64
 * </pre>
 *
 * A sidecar is derived data: one that is missing, fails its CRC or does not match its segment is
 * rebuilt by scanning the segment.
 */
public final class SegmentSidecar {
  static final int MAGIC = 0x4B4C5853;
  static final short VERSION = 1;
  static final int CRC_OFFSET = 8;
  static final int CRC_FROM = 12;
  static final int HEADER_SIZE = 76;
  private static final short FLAG_SEALED = 1;

  private SegmentSidecar() {}

  /** What a sidecar holds. */
  public record Contents(
      long baseOffset,
      int generation,
      boolean sealed,
      long validLength,
      long lastOffset,
      long maxTimestamp,
      long offsetOfMaxTimestamp,
      long createdMs,
      SegmentIndex index,
      ProducerStateTable producers) {}

  /** Encodes the sidecar of {@code segment} with {@code producers} as of its end. */
  public static ByteBuf encode(
      Segment segment, boolean sealed, ProducerStateTable producers, ByteBufAllocator alloc) {
    SegmentIndex.Snapshot idx = segment.index().snapshot();
    int n = idx.offsets().length;
    int m = idx.times().length;
    ByteBuf out = alloc.heapBuffer(HEADER_SIZE + n * 8 + m * 12 + 64);
    try {
      out.writeInt(MAGIC)
          .writeShort(VERSION)
          .writeShort(sealed ? FLAG_SEALED : 0)
          .writeInt(0)
          .writeLong(segment.baseOffset())
          .writeInt(segment.generation())
          .writeLong(segment.validLength())
          .writeLong(segment.lastOffset())
          .writeLong(segment.maxTimestamp())
          .writeLong(segment.offsetOfMaxTimestamp())
          .writeLong(segment.createdMs())
          .writeInt(n)
          .writeInt(m);
      int countAt = out.writerIndex();
      out.writeInt(0);
      for (int i = 0; i < n; i++) {
        out.writeInt(idx.offsets()[i]).writeInt(idx.positions()[i]);
      }
      for (int i = 0; i < m; i++) {
        out.writeLong(idx.times()[i]).writeInt(idx.timeOffsets()[i]);
      }
      int count = producers == null ? 0 : producers.writeTo(out);
      out.setInt(countAt, count);
      out.setInt(CRC_OFFSET, (int) crc(out));
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  private static long crc(ByteBuf buf) {
    CRC32C crc = new CRC32C();
    int from = buf.readerIndex() + CRC_FROM;
    for (ByteBuffer part : buf.nioBuffers(from, buf.writerIndex() - from)) {
      crc.update(part);
    }
    return crc.getValue();
  }

  /**
   * Decodes a sidecar; throws IllegalArgumentException, saying what is wrong, when the bytes are
   * not a valid sidecar. Does not release {@code in}.
   */
  public static Contents decode(ByteBuf in) {
    ByteBuf b = in.duplicate();
    if (b.readableBytes() < HEADER_SIZE) {
      throw new IllegalArgumentException("sidecar of " + b.readableBytes() + " bytes is too short");
    }
    int start = b.readerIndex();
    if (b.getInt(start) != MAGIC) {
      throw new IllegalArgumentException("not a segment sidecar (bad magic)");
    }
    short version = b.getShort(start + 4);
    if (version != VERSION) {
      throw new IllegalArgumentException("unsupported sidecar version " + version);
    }
    long stored = b.getUnsignedInt(start + CRC_OFFSET);
    long computed = crc(b);
    if (stored != computed) {
      throw new IllegalArgumentException(
          "sidecar CRC mismatch: stored " + stored + ", computed " + computed);
    }
    b.skipBytes(6);
    boolean sealed = (b.readShort() & FLAG_SEALED) != 0;
    b.skipBytes(4);
    long baseOffset = b.readLong();
    int generation = b.readInt();
    long validLength = b.readLong();
    long lastOffset = b.readLong();
    long maxTimestamp = b.readLong();
    long offsetOfMaxTimestamp = b.readLong();
    long createdMs = b.readLong();
    int n = b.readInt();
    int m = b.readInt();
    int p = b.readInt();
    if (n < 0 || m < 0 || p < 0 || (long) n * 8 + (long) m * 12 > b.readableBytes()) {
      throw new IllegalArgumentException("sidecar entry counts do not fit its size");
    }
    if (validLength < 0 || lastOffset < baseOffset - 1) {
      throw new IllegalArgumentException("sidecar has an impossible length or last offset");
    }
    int[] offsets = new int[n];
    int[] positions = new int[n];
    for (int i = 0; i < n; i++) {
      offsets[i] = b.readInt();
      positions[i] = b.readInt();
    }
    long[] times = new long[m];
    int[] timeOffsets = new int[m];
    for (int i = 0; i < m; i++) {
      times[i] = b.readLong();
      timeOffsets[i] = b.readInt();
    }
    if ((long) p * ProducerStateTable.MIN_ENTRY_SIZE > b.readableBytes()) {
      throw new IllegalArgumentException("sidecar producer count does not fit its size");
    }
    ProducerStateTable producers = ProducerStateTable.readFrom(b, p);
    if (b.isReadable()) {
      throw new IllegalArgumentException(b.readableBytes() + " bytes after the sidecar's end");
    }
    return new Contents(
        baseOffset,
        generation,
        sealed,
        validLength,
        lastOffset,
        maxTimestamp,
        offsetOfMaxTimestamp,
        createdMs,
        new SegmentIndex(offsets, positions, times, timeOffsets),
        producers);
  }
}
