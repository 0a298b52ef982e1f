package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A view over one magic-2 record batch in a buffer, read and patched in place without copying.
 *
 * <pre>
 * Record batch v2, integers big-endian; the header is 61 bytes.
 *
 *  offset +-----------------------------------+
 *       0 | baseOffset             int64      |  assigned by the leader
 *       8 | batchLength            int32      |  bytes after this field
 *      12 | partitionLeaderEpoch   int32      |  set by the leader
 *      16 | magic                  int8       |  2
 *      17 | crc                    uint32     |  CRC-32C of byte 21 to the end
 *      21 | attributes             int16      |  --+
 *      23 | lastOffsetDelta        int32      |    |
 *      27 | baseTimestamp          int64      |    |
 *      35 | maxTimestamp           int64      |    |
 *      43 | producerId             int64      |    |  covered by the CRC
 *      51 | producerEpoch          int16      |    |
 *      53 | baseSequence           int32      |    |
 *      57 | recordCount            int32      |    |
 *      61 | records ...                       |  --+  compressed as one unit if a codec is set
 *         +-----------------------------------+
 *
 * sizeInBytes = batchLength + 12. The CRC leaves out baseOffset, batchLength,
 * partitionLeaderEpoch and magic, so a leader rewrites the first and third in place.
 *
 * attributes: bits 0-2 compression (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd),
 *   bit 3 timestamp type (1 = LogAppendTime), bit 4 transactional, bit 5 control,
 *   bit 6 delete horizon (baseTimestamp holds it; set by compaction), bits 7-15 unused.
 * </pre>
 *
 * <p>Buffer ownership: the view neither retains nor releases its buffer; it is valid while the
 * caller keeps the buffer alive and does not move the batch. Accessors use absolute indexes and
 * leave the buffer's reader and writer indexes alone.
 */
public final class RecordBatch {
  public static final byte MAGIC_V2 = 2;
  public static final int HEADER_SIZE = 61;

  /** baseOffset and batchLength: the bytes not counted by batchLength. */
  public static final int LOG_OVERHEAD = 12;

  /** The smallest batchLength a v2 batch can have: a header and no records. */
  public static final int MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD;

  public static final long NO_PRODUCER_ID = -1L;
  public static final short NO_PRODUCER_EPOCH = -1;
  public static final int NO_SEQUENCE = -1;
  public static final long NO_TIMESTAMP = -1L;
  public static final int NO_PARTITION_LEADER_EPOCH = -1;

  static final int BASE_OFFSET_OFFSET = 0;
  static final int BATCH_LENGTH_OFFSET = 8;
  static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
  static final int MAGIC_OFFSET = 16;
  static final int CRC_OFFSET = 17;
  static final int ATTRIBUTES_OFFSET = 21;
  static final int LAST_OFFSET_DELTA_OFFSET = 23;
  static final int BASE_TIMESTAMP_OFFSET = 27;
  static final int MAX_TIMESTAMP_OFFSET = 35;
  static final int PRODUCER_ID_OFFSET = 43;
  static final int PRODUCER_EPOCH_OFFSET = 51;
  static final int BASE_SEQUENCE_OFFSET = 53;
  static final int RECORD_COUNT_OFFSET = 57;
  static final int RECORDS_OFFSET = 61;

  static final int COMPRESSION_MASK = 0x07;
  static final int TIMESTAMP_TYPE_BIT = 0x08;
  static final int TRANSACTIONAL_BIT = 0x10;
  static final int CONTROL_BIT = 0x20;
  static final int DELETE_HORIZON_BIT = 0x40;

  private final ByteBuf buf;
  private final int offset;

  private RecordBatch(ByteBuf buf, int offset) {
    this.buf = buf;
    this.offset = offset;
  }

  /**
   * The batch that starts at {@code offset} in {@code buf}. Throws {@link InvalidRecordException}
   * unless the magic is 2, batchLength covers at least a header, and the whole batch lies below the
   * buffer's writer index.
   */
  public static RecordBatch at(ByteBuf buf, int offset) {
    int available = buf.writerIndex() - offset;
    if (offset < 0 || available < HEADER_SIZE) {
      throw new InvalidRecordException(
          String.format(
              "record batch at byte %d: %d bytes, fewer than the 61-byte header",
              offset, Math.max(0, available)));
    }
    RecordBatch batch = new RecordBatch(buf, offset);
    if (batch.magic() != MAGIC_V2) {
      throw new InvalidRecordException(
          "record batch at byte " + offset + ": unsupported magic " + batch.magic());
    }
    int length = batch.batchLength();
    if (length < MIN_BATCH_LENGTH || length > available - LOG_OVERHEAD) {
      throw new InvalidRecordException(
          String.format(
              "record batch at byte %d: batchLength %d but %d bytes follow it (at least 49 needed)",
              offset, length, available - LOG_OVERHEAD));
    }
    return batch;
  }

  /** A view whose bounds the caller has already checked. */
  static RecordBatch trusted(ByteBuf buf, int offset) {
    return new RecordBatch(buf, offset);
  }

  public ByteBuf buffer() {
    return buf;
  }

  /** The index of the batch's first byte in {@link #buffer()}. */
  public int offset() {
    return offset;
  }

  /** The batch's bytes as a slice of the buffer (not retained). */
  public ByteBuf slice() {
    return buf.slice(offset, sizeInBytes());
  }

  /** The records section (compressed if the batch is) as a slice of the buffer (not retained). */
  public ByteBuf recordsSection() {
    return buf.slice(offset + RECORDS_OFFSET, sizeInBytes() - RECORDS_OFFSET);
  }

  public long baseOffset() {
    return buf.getLong(offset + BASE_OFFSET_OFFSET);
  }

  public int batchLength() {
    return buf.getInt(offset + BATCH_LENGTH_OFFSET);
  }

  /** The whole batch, header included. */
  public int sizeInBytes() {
    return batchLength() + LOG_OVERHEAD;
  }

  public int partitionLeaderEpoch() {
    return buf.getInt(offset + PARTITION_LEADER_EPOCH_OFFSET);
  }

  public byte magic() {
    return buf.getByte(offset + MAGIC_OFFSET);
  }

  /** The stored CRC-32C, unsigned. */
  public long crc() {
    return buf.getUnsignedInt(offset + CRC_OFFSET);
  }

  public short attributes() {
    return buf.getShort(offset + ATTRIBUTES_OFFSET);
  }

  /** The raw codec id from attribute bits 0-2; 5-7 are undefined. */
  public int compressionId() {
    return attributes() & COMPRESSION_MASK;
  }

  /** The codec; throws {@link InvalidRecordException} for the undefined ids 5-7. */
  public Compression compression() {
    return Compression.forId(compressionId());
  }

  public TimestampType timestampType() {
    return (attributes() & TIMESTAMP_TYPE_BIT) != 0
        ? TimestampType.LOG_APPEND_TIME
        : TimestampType.CREATE_TIME;
  }

  public boolean isTransactional() {
    return (attributes() & TRANSACTIONAL_BIT) != 0;
  }

  public boolean isControl() {
    return (attributes() & CONTROL_BIT) != 0;
  }

  public boolean hasDeleteHorizon() {
    return (attributes() & DELETE_HORIZON_BIT) != 0;
  }

  /** The delete horizon compaction set, or {@link #NO_TIMESTAMP}. */
  public long deleteHorizonMs() {
    return hasDeleteHorizon() ? baseTimestamp() : NO_TIMESTAMP;
  }

  public int lastOffsetDelta() {
    return buf.getInt(offset + LAST_OFFSET_DELTA_OFFSET);
  }

  public long lastOffset() {
    return baseOffset() + lastOffsetDelta();
  }

  /** The next offset after this batch. */
  public long nextOffset() {
    return lastOffset() + 1;
  }

  public long baseTimestamp() {
    return buf.getLong(offset + BASE_TIMESTAMP_OFFSET);
  }

  public long maxTimestamp() {
    return buf.getLong(offset + MAX_TIMESTAMP_OFFSET);
  }

  public long producerId() {
    return buf.getLong(offset + PRODUCER_ID_OFFSET);
  }

  public boolean hasProducerId() {
    return producerId() > NO_PRODUCER_ID;
  }

  public short producerEpoch() {
    return buf.getShort(offset + PRODUCER_EPOCH_OFFSET);
  }

  public int baseSequence() {
    return buf.getInt(offset + BASE_SEQUENCE_OFFSET);
  }

  /** The sequence of the last record; sequences wrap from Integer.MAX_VALUE to 0. */
  public int lastSequence() {
    int base = baseSequence();
    if (base == NO_SEQUENCE) {
      return NO_SEQUENCE;
    }
    return (int) (((long) base + lastOffsetDelta()) % (1L + Integer.MAX_VALUE));
  }

  public int recordCount() {
    return buf.getInt(offset + RECORD_COUNT_OFFSET);
  }

  public boolean isCompressed() {
    return compressionId() != Compression.NONE.id();
  }

  /** Sets the base offset, as a leader does on append; the CRC does not cover it. */
  public void setBaseOffset(long baseOffset) {
    buf.setLong(offset + BASE_OFFSET_OFFSET, baseOffset);
  }

  /** Sets the partition leader epoch; the CRC does not cover it. */
  public void setPartitionLeaderEpoch(int epoch) {
    buf.setInt(offset + PARTITION_LEADER_EPOCH_OFFSET, epoch);
  }

  /**
   * Marks the batch LogAppendTime with the broker's append time as maxTimestamp, which readers then
   * report for every record, and rewrites the CRC to match.
   */
  public void setLogAppendTime(long appendTime) {
    buf.setShort(offset + ATTRIBUTES_OFFSET, attributes() | TIMESTAMP_TYPE_BIT);
    buf.setLong(offset + MAX_TIMESTAMP_OFFSET, appendTime);
    updateCrc();
  }

  /** The CRC-32C of attributes through the end of the batch. */
  public long computeCrc() {
    CRC32C crc = new CRC32C();
    int from = offset + ATTRIBUTES_OFFSET;
    for (ByteBuffer part : buf.nioBuffers(from, sizeInBytes() - ATTRIBUTES_OFFSET)) {
      crc.update(part);
    }
    return crc.getValue();
  }

  public boolean isCrcValid() {
    return computeCrc() == crc();
  }

  /** Writes the CRC of the current bytes, after a change to a field it covers. */
  public void updateCrc() {
    buf.setInt(offset + CRC_OFFSET, (int) computeCrc());
  }

  /**
   * Iterates the records, decompressing first if needed; see {@link RecordIterator}. The iterator
   * must be closed to release the decompressed bytes.
   *
   * @param maxUncompressedBytes the most bytes the records section may inflate to
   */
  public RecordIterator records(int maxUncompressedBytes) {
    return new RecordIterator(this, maxUncompressedBytes, ByteBufAllocator.DEFAULT);
  }

  public RecordIterator records(int maxUncompressedBytes, ByteBufAllocator alloc) {
    return new RecordIterator(this, maxUncompressedBytes, alloc);
  }

  @Override
  public String toString() {
    return String.format(
        "RecordBatch(offsets %d-%d, count=%d, size=%d, compression=%d, %s, transactional=%b,"
            + " control=%b, producer=%d/%d, baseSequence=%d, leaderEpoch=%d)",
        baseOffset(),
        lastOffset(),
        recordCount(),
        sizeInBytes(),
        compressionId(),
        timestampType(),
        isTransactional(),
        isControl(),
        producerId(),
        producerEpoch(),
        baseSequence(),
        partitionLeaderEpoch());
  }
}
