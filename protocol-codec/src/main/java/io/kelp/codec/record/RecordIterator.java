package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Reads the records of one batch in order. A compressed batch is inflated once, up front, into a
 * buffer this iterator owns; an uncompressed one is read in place. Every length read from the wire
 * is checked against the bytes left in the record before anything is sliced or allocated, and the
 * record count must match the records section exactly. Anything malformed throws {@link
 * InvalidRecordException} naming the batch, the record index and the byte position.
 *
 * <p>Buffer ownership: the iterator does not retain the batch's buffer. It owns the decompressed
 * bytes, which {@link #close()} releases; records it returned share them and must not be used after
 * that.
 */
public final class RecordIterator implements Iterator<Record>, AutoCloseable {
  // length, attributes, timestampDelta, offsetDelta, keyLength, valueLength, headerCount
  private static final int MIN_RECORD_SIZE = 7;

  private final long baseOffset;
  private final long baseTimestamp;
  private final boolean logAppendTime;
  private final long maxTimestamp;
  private final int count;
  private final ByteBuf data;
  private final boolean ownsData;
  private final int end;
  private int pos;
  private int index;
  private boolean closed;
  private int lastOffsetDelta;
  private long lastTimestamp;
  private boolean lastHasKey;

  RecordIterator(RecordBatch batch, int maxUncompressedBytes, ByteBufAllocator alloc) {
    this.baseOffset = batch.baseOffset();
    this.baseTimestamp = batch.baseTimestamp();
    this.logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
    this.maxTimestamp = batch.maxTimestamp();
    this.count = batch.recordCount();
    if (count < 0) {
      throw new InvalidRecordException(batchWhere() + "invalid record count " + count);
    }
    Compression compression = batch.compression();
    ByteBuf section = batch.recordsSection();
    if (compression == Compression.NONE || !section.isReadable()) {
      data = section;
      ownsData = false;
    } else {
      data = decompress(compression, section, maxUncompressedBytes, alloc);
      ownsData = true;
    }
    this.pos = data.readerIndex();
    this.end = data.writerIndex();
    if (count > (end - pos) / MIN_RECORD_SIZE || (count == 0 && end > pos)) {
      String problem =
          "record count " + count + " does not fit the " + (end - pos) + "-byte records section";
      close();
      throw new InvalidRecordException(batchWhere() + problem);
    }
  }

  private ByteBuf decompress(Compression codec, ByteBuf section, int max, ByteBufAllocator alloc) {
    try {
      return codec.decompress(section, max, alloc);
    } catch (InvalidRecordException e) {
      throw new InvalidRecordException(batchWhere() + e.getMessage(), e);
    }
  }

  /** The number of records the batch header declares. */
  public int count() {
    return count;
  }

  @Override
  public boolean hasNext() {
    return index < count;
  }

  @Override
  public Record next() {
    startNext();
    Record record = readRecord(true);
    endNext();
    return record;
  }

  /**
   * Reads and checks the next record exactly as {@link #next} does, without building it (no record,
   * no slices, no headers): for checks that look at a few fields of every record. Those fields are
   * then {@link #offsetDelta()}, {@link #timestamp()} and {@link #hasKey()}.
   */
  public void skipNext() {
    startNext();
    readRecord(false);
    endNext();
  }

  /** The offset delta of the record the last {@link #next} or {@link #skipNext} read. */
  public int offsetDelta() {
    return lastOffsetDelta;
  }

  /** The timestamp (resolved as {@link Record#timestamp}) of the record last read. */
  public long timestamp() {
    return lastTimestamp;
  }

  /** Whether the record last read has a key (null is none; an empty key is one). */
  public boolean hasKey() {
    return lastHasKey;
  }

  private void startNext() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    if (closed) {
      throw new IllegalStateException("iterator closed");
    }
  }

  private void endNext() {
    index++;
    if (index == count && pos != end) {
      throw fail((end - pos) + " bytes left after the last of " + count + " records");
    }
  }

  /** Reads the record at {@code pos}; builds it only if {@code build}, else returns null. */
  private Record readRecord(boolean build) {
    int start = pos;
    int length = readVarint(end, "record length");
    if (length < 0) {
      throw fail("negative record length " + length);
    }
    if (length > end - pos) {
      throw fail("record length " + length + " exceeds the " + (end - pos) + " bytes left");
    }
    int limit = pos + length;
    if (pos == limit) {
      throw fail("empty record");
    }
    byte attributes = data.getByte(pos++);
    long timestampDelta = readVarlong(limit, "timestamp delta");
    int offsetDelta = readVarint(limit, "offset delta");
    int keyLength = skipBytes(limit, "key", "key length");
    int keyAt = pos - Math.max(keyLength, 0);
    int valueLength = skipBytes(limit, "value", "value length");
    int valueAt = pos - Math.max(valueLength, 0);
    List<RecordHeader> headers = readHeaders(limit, build);
    if (pos != limit) {
      throw fail("record length says " + length + " bytes but its fields take " + (pos - start));
    }
    long timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
    lastOffsetDelta = offsetDelta;
    lastTimestamp = timestamp;
    lastHasKey = keyLength >= 0;
    if (!build) {
      return null;
    }
    return new Record(
        baseOffset + offsetDelta,
        offsetDelta,
        timestamp,
        timestampDelta,
        attributes,
        keyLength < 0 ? null : data.slice(keyAt, keyLength),
        valueLength < 0 ? null : data.slice(valueAt, valueLength),
        headers,
        limit - start);
  }

  /** The headers, checked; built only if {@code build}, else null. */
  private List<RecordHeader> readHeaders(int limit, boolean build) {
    int headerCount = readVarint(limit, "header count");
    if (headerCount < 0) {
      throw fail("negative header count " + headerCount);
    }
    if (headerCount == 0) {
      return build ? List.of() : null;
    }
    // Each header takes at least two bytes: its key and value lengths.
    if (headerCount > (limit - pos) / 2) {
      throw fail(
          "header count " + headerCount + " does not fit the " + (limit - pos) + " bytes left");
    }
    List<RecordHeader> headers = build ? new ArrayList<>(headerCount) : null;
    for (int i = 0; i < headerCount; i++) {
      int keyLength = readVarint(limit, "header key length");
      if (keyLength < 0 || keyLength > limit - pos) {
        throw fail(
            "header " + i + " key length " + keyLength + " with " + (limit - pos) + " bytes left");
      }
      String key = build ? data.toString(pos, keyLength, StandardCharsets.UTF_8) : null;
      pos += keyLength;
      int valueLength = readVarint(limit, "header value length");
      if (valueLength < -1 || valueLength > limit - pos) {
        throw fail(
            String.format(
                "header %d value length %d with %d bytes left", i, valueLength, limit - pos));
      }
      byte[] value = null;
      if (valueLength >= 0) {
        if (build) {
          value = new byte[valueLength];
          data.getBytes(pos, value);
        }
        pos += valueLength;
      }
      if (build) {
        headers.add(new RecordHeader(key, value));
      }
    }
    return headers;
  }

  /**
   * Steps over a length-prefixed field and returns its length, -1 for null. {@code lengthName} is
   * {@code field + " length"}, passed as a constant since this runs for every record.
   */
  private int skipBytes(int limit, String field, String lengthName) {
    int length = readVarint(limit, lengthName);
    if (length == -1) {
      return -1;
    }
    if (length < -1 || length > limit - pos) {
      throw fail(
          field + " length " + length + " with " + (limit - pos) + " bytes left in the record");
    }
    pos += length;
    return length;
  }

  /** A zig-zag varint of at most 5 bytes; like Kafka, bits past 32 are dropped. */
  private int readVarint(int limit, String field) {
    int raw = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (pos >= limit) {
        throw fail(field + ": varint runs past the end of the record");
      }
      byte b = data.getByte(pos++);
      raw |= (b & 0x7f) << shift;
      if (b >= 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw fail(field + ": varint longer than 5 bytes");
  }

  /** A zig-zag varlong of at most 10 bytes. */
  private long readVarlong(int limit, String field) {
    long raw = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos >= limit) {
        throw fail(field + ": varlong runs past the end of the record");
      }
      byte b = data.getByte(pos++);
      raw |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw fail(field + ": varlong longer than 10 bytes");
  }

  private String batchWhere() {
    return "record batch at base offset " + baseOffset + ": ";
  }

  private InvalidRecordException fail(String problem) {
    return new InvalidRecordException(
        String.format(
            "record batch at base offset %d, record %d (byte %d of the records section): %s",
            baseOffset, index, pos - data.readerIndex(), problem));
  }

  /** Releases the decompressed bytes, if any. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      if (ownsData) {
        data.release();
      }
    }
  }
}
