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
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    if (closed) {
      throw new IllegalStateException("iterator closed");
    }
    Record record = readRecord();
    index++;
    if (index == count && pos != end) {
      throw fail((end - pos) + " bytes left after the last of " + count + " records");
    }
    return record;
  }

  private Record readRecord() {
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
    ByteBuf key = readBytes(limit, "key", "key length");
    ByteBuf value = readBytes(limit, "value", "value length");
    List<RecordHeader> headers = readHeaders(limit);
    if (pos != limit) {
      throw fail("record length says " + length + " bytes but its fields take " + (pos - start));
    }
    long timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
    return new Record(
        baseOffset + offsetDelta,
        offsetDelta,
        timestamp,
        timestampDelta,
        attributes,
        key,
        value,
        headers,
        limit - start);
  }

  private List<RecordHeader> readHeaders(int limit) {
    int headerCount = readVarint(limit, "header count");
    if (headerCount < 0) {
      throw fail("negative header count " + headerCount);
    }
    if (headerCount == 0) {
      return List.of();
    }
    // Each header takes at least two bytes: its key and value lengths.
    if (headerCount > (limit - pos) / 2) {
      throw fail(
          "header count " + headerCount + " does not fit the " + (limit - pos) + " bytes left");
    }
    List<RecordHeader> headers = new ArrayList<>(headerCount);
    for (int i = 0; i < headerCount; i++) {
      int keyLength = readVarint(limit, "header key length");
      if (keyLength < 0 || keyLength > limit - pos) {
        throw fail(
            "header " + i + " key length " + keyLength + " with " + (limit - pos) + " bytes left");
      }
      String key = data.toString(pos, keyLength, StandardCharsets.UTF_8);
      pos += keyLength;
      int valueLength = readVarint(limit, "header value length");
      if (valueLength < -1 || valueLength > limit - pos) {
        throw fail(
            String.format(
                "header %d value length %d with %d bytes left", i, valueLength, limit - pos));
      }
      byte[] value = null;
      if (valueLength >= 0) {
        value = new byte[valueLength];
        data.getBytes(pos, value);
        pos += valueLength;
      }
      headers.add(new RecordHeader(key, value));
    }
    return headers;
  }

  /**
   * A length-prefixed field: null for length -1, else a slice of the data. {@code lengthName} is
   * {@code field + " length"}, passed as a constant since this runs for every record.
   */
  private ByteBuf readBytes(int limit, String field, String lengthName) {
    int length = readVarint(limit, lengthName);
    if (length == -1) {
      return null;
    }
    if (length < -1 || length > limit - pos) {
      throw fail(
          field + " length " + length + " with " + (limit - pos) + " bytes left in the record");
    }
    ByteBuf slice = data.slice(pos, length);
    pos += length;
    return slice;
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
