package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes one magic-2 record batch: for control batches, compaction and tests. Records get
 * consecutive offsets from the base offset unless given their own (increasing) ones; lengths,
 * lastOffsetDelta, baseTimestamp, maxTimestamp and the CRC are derived when {@link #build} runs.
 *
 * <p>A builder holds the records it is given by reference until {@link #build}, which may be called
 * more than once.
 */
public final class RecordBatchBuilder {
  private long baseOffset;
  private int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
  private long producerId = RecordBatch.NO_PRODUCER_ID;
  private short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
  private int baseSequence = RecordBatch.NO_SEQUENCE;
  private boolean transactional;
  private boolean control;
  private Compression compression = Compression.NONE;
  private long logAppendTime = RecordBatch.NO_TIMESTAMP;
  private long deleteHorizonMs = RecordBatch.NO_TIMESTAMP;
  private final List<Entry> entries = new ArrayList<>();

  private record Entry(
      long offset, long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {}

  public RecordBatchBuilder baseOffset(long baseOffset) {
    if (!entries.isEmpty()) {
      throw new IllegalStateException("set the base offset before appending records");
    }
    this.baseOffset = baseOffset;
    return this;
  }

  public RecordBatchBuilder partitionLeaderEpoch(int epoch) {
    this.partitionLeaderEpoch = epoch;
    return this;
  }

  /** An idempotent or transactional producer's id, epoch and the first record's sequence. */
  public RecordBatchBuilder producer(long producerId, short producerEpoch, int baseSequence) {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    return this;
  }

  public RecordBatchBuilder transactional(boolean transactional) {
    this.transactional = transactional;
    return this;
  }

  public RecordBatchBuilder control(boolean control) {
    this.control = control;
    return this;
  }

  public RecordBatchBuilder compression(Compression compression) {
    this.compression = compression;
    return this;
  }

  /** Makes the batch LogAppendTime, with this time as maxTimestamp. */
  public RecordBatchBuilder logAppendTime(long appendTime) {
    this.logAppendTime = appendTime;
    return this;
  }

  /** Sets attribute bit 6 and stores the horizon as baseTimestamp, as compaction does. */
  public RecordBatchBuilder deleteHorizonMs(long deleteHorizonMs) {
    this.deleteHorizonMs = deleteHorizonMs;
    return this;
  }

  /** Appends a record at the next offset. Key, value and header values may be null. */
  public RecordBatchBuilder append(
      long timestamp, byte[] key, byte[] value, RecordHeader... headers) {
    long offset = entries.isEmpty() ? baseOffset : entries.get(entries.size() - 1).offset + 1;
    return appendWithOffset(offset, timestamp, key, value, List.of(headers));
  }

  /** Appends a record at an offset above the previous one's, within an int of the base offset. */
  public RecordBatchBuilder appendWithOffset(
      long offset, long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {
    if (offset < baseOffset || offset - baseOffset > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "offset " + offset + " is not within an int above base offset " + baseOffset);
    }
    if (!entries.isEmpty() && offset <= entries.get(entries.size() - 1).offset) {
      throw new IllegalArgumentException("offset " + offset + " does not increase");
    }
    entries.add(new Entry(offset, timestamp, key, value, List.copyOf(headers)));
    return this;
  }

  public int recordCount() {
    return entries.size();
  }

  /** Builds with the default allocator. */
  public ByteBuf build() {
    return build(ByteBufAllocator.DEFAULT);
  }

  /** Writes the batch into a new buffer that the caller owns and must release. */
  public ByteBuf build(ByteBufAllocator alloc) {
    long baseTimestamp = baseTimestamp();
    ByteBuf records = alloc.heapBuffer(recordsSize(baseTimestamp));
    ByteBuf batch = null;
    try {
      for (Entry entry : entries) {
        writeRecord(records, entry, baseTimestamp);
      }
      ByteBuf section = records;
      if (compression != Compression.NONE) {
        section = compression.compress(records, alloc);
        records.release();
        records = section;
      }
      batch = alloc.buffer(RecordBatch.HEADER_SIZE + section.readableBytes());
      writeHeader(batch, baseTimestamp, section.readableBytes());
      batch.writeBytes(section);
      RecordBatch.trusted(batch, 0).updateCrc();
      return batch;
    } catch (RuntimeException e) {
      if (batch != null) {
        batch.release();
      }
      throw e;
    } finally {
      records.release();
    }
  }

  private long baseTimestamp() {
    if (deleteHorizonMs != RecordBatch.NO_TIMESTAMP) {
      return deleteHorizonMs;
    }
    return entries.isEmpty() ? RecordBatch.NO_TIMESTAMP : entries.get(0).timestamp;
  }

  private long maxTimestamp() {
    if (logAppendTime != RecordBatch.NO_TIMESTAMP) {
      return logAppendTime;
    }
    long max = RecordBatch.NO_TIMESTAMP;
    for (Entry entry : entries) {
      max = Math.max(max, entry.timestamp);
    }
    return max;
  }

  private void writeHeader(ByteBuf out, long baseTimestamp, int sectionSize) {
    int attributes = compression.id();
    if (logAppendTime != RecordBatch.NO_TIMESTAMP) {
      attributes |= RecordBatch.TIMESTAMP_TYPE_BIT;
    }
    if (transactional) {
      attributes |= RecordBatch.TRANSACTIONAL_BIT;
    }
    if (control) {
      attributes |= RecordBatch.CONTROL_BIT;
    }
    if (deleteHorizonMs != RecordBatch.NO_TIMESTAMP) {
      attributes |= RecordBatch.DELETE_HORIZON_BIT;
    }
    long lastOffset = entries.isEmpty() ? baseOffset : entries.get(entries.size() - 1).offset;
    out.writeLong(baseOffset)
        .writeInt(RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD + sectionSize)
        .writeInt(partitionLeaderEpoch)
        .writeByte(RecordBatch.MAGIC_V2)
        .writeInt(0) // CRC, written last
        .writeShort(attributes)
        .writeInt((int) (lastOffset - baseOffset))
        .writeLong(baseTimestamp)
        .writeLong(maxTimestamp())
        .writeLong(producerId)
        .writeShort(producerEpoch)
        .writeInt(baseSequence)
        .writeInt(entries.size());
  }

  private int recordsSize(long baseTimestamp) {
    int size = 0;
    for (Entry entry : entries) {
      int body = bodySize(entry, baseTimestamp);
      size += Varint.sizeOfVarint(body) + body;
    }
    return size;
  }

  private int bodySize(Entry entry, long baseTimestamp) {
    int size = 1; // attributes
    size += Varint.sizeOfVarlong(entry.timestamp - baseTimestamp);
    size += Varint.sizeOfVarint((int) (entry.offset - baseOffset));
    size += sizeOfBytes(entry.key) + sizeOfBytes(entry.value);
    size += Varint.sizeOfVarint(entry.headers.size());
    for (RecordHeader header : entry.headers) {
      int keyLength = header.key().getBytes(StandardCharsets.UTF_8).length;
      size += Varint.sizeOfVarint(keyLength) + keyLength + sizeOfBytes(header.value());
    }
    return size;
  }

  private static int sizeOfBytes(byte[] bytes) {
    return bytes == null
        ? Varint.sizeOfVarint(-1)
        : Varint.sizeOfVarint(bytes.length) + bytes.length;
  }

  private void writeRecord(ByteBuf out, Entry entry, long baseTimestamp) {
    Varint.writeVarint(out, bodySize(entry, baseTimestamp));
    out.writeByte(0);
    Varint.writeVarlong(out, entry.timestamp - baseTimestamp);
    Varint.writeVarint(out, (int) (entry.offset - baseOffset));
    writeBytes(out, entry.key);
    writeBytes(out, entry.value);
    Varint.writeVarint(out, entry.headers.size());
    for (RecordHeader header : entry.headers) {
      writeBytes(out, header.key().getBytes(StandardCharsets.UTF_8));
      writeBytes(out, header.value());
    }
  }

  private static void writeBytes(ByteBuf out, byte[] bytes) {
    if (bytes == null) {
      Varint.writeVarint(out, -1);
    } else {
      Varint.writeVarint(out, bytes.length);
      out.writeBytes(bytes);
    }
  }

  /**
   * A transaction marker control batch: transactional and control, one record whose key says commit
   * or abort and whose value holds the coordinator epoch, no base sequence, uncompressed. The
   * caller owns and must release the buffer.
   */
  public static ByteBuf transactionMarker(
      ByteBufAllocator alloc,
      long baseOffset,
      long producerId,
      short producerEpoch,
      int partitionLeaderEpoch,
      TransactionMarker marker,
      long timestamp) {
    return new RecordBatchBuilder()
        .baseOffset(baseOffset)
        .partitionLeaderEpoch(partitionLeaderEpoch)
        .producer(producerId, producerEpoch, RecordBatch.NO_SEQUENCE)
        .transactional(true)
        .control(true)
        .append(timestamp, marker.key(), marker.value())
        .build(alloc);
  }
}
