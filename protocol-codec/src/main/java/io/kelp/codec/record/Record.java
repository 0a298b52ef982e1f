package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.List;

/**
 * One record read from a batch, with its absolute offset and timestamp resolved against the batch
 * header.
 *
 * <pre>
 * length          varint   bytes after this field
 * attributes      int8     unused
 * timestampDelta  varlong  from the batch's baseTimestamp
 * offsetDelta     varint   from the batch's baseOffset
 * keyLength       varint   -1 = null
 * key             bytes
 * valueLength     varint   -1 = null
 * value           bytes
 * headerCount     varint
 * headers         [keyLength varint (not null), key UTF-8, valueLength varint (-1 = null), value]
 * </pre>
 *
 * <p>Buffer ownership: {@link #key()} and {@link #value()} are slices (not retained) of the batch's
 * buffer, or of the decompressed bytes held by the {@link RecordIterator} that produced the record;
 * they are valid until that buffer is released or the iterator closed. {@link #keyBytes()} and
 * {@link #valueBytes()} copy.
 */
public final class Record {
  private final long offset;
  private final int offsetDelta;
  private final long timestamp;
  private final long timestampDelta;
  private final byte attributes;
  private final ByteBuf key;
  private final ByteBuf value;
  private final List<RecordHeader> headers;
  private final int sizeInBytes;

  Record(
      long offset,
      int offsetDelta,
      long timestamp,
      long timestampDelta,
      byte attributes,
      ByteBuf key,
      ByteBuf value,
      List<RecordHeader> headers,
      int sizeInBytes) {
    this.offset = offset;
    this.offsetDelta = offsetDelta;
    this.timestamp = timestamp;
    this.timestampDelta = timestampDelta;
    this.attributes = attributes;
    this.key = key;
    this.value = value;
    this.headers = headers;
    this.sizeInBytes = sizeInBytes;
  }

  /** baseOffset + offsetDelta. */
  public long offset() {
    return offset;
  }

  public int offsetDelta() {
    return offsetDelta;
  }

  /** The batch's maxTimestamp for LogAppendTime batches, else baseTimestamp + timestampDelta. */
  public long timestamp() {
    return timestamp;
  }

  public long timestampDelta() {
    return timestampDelta;
  }

  public byte attributes() {
    return attributes;
  }

  /** The key bytes as a slice, or null. */
  public ByteBuf key() {
    return key;
  }

  /** The value bytes as a slice, or null (a tombstone on a compacted topic). */
  public ByteBuf value() {
    return value;
  }

  public boolean hasKey() {
    return key != null;
  }

  public boolean hasValue() {
    return value != null;
  }

  /** A copy of the key, or null. */
  public byte[] keyBytes() {
    return key == null ? null : ByteBufUtil.getBytes(key);
  }

  /** A copy of the value, or null. */
  public byte[] valueBytes() {
    return value == null ? null : ByteBufUtil.getBytes(value);
  }

  public List<RecordHeader> headers() {
    return headers;
  }

  /** The encoded size, length prefix included. */
  public int sizeInBytes() {
    return sizeInBytes;
  }

  @Override
  public String toString() {
    return String.format(
        "Record(offset=%d, timestamp=%d, key=%s, value=%s, headers=%d)",
        offset, timestamp, describe(key), describe(value), headers.size());
  }

  private static String describe(ByteBuf bytes) {
    return bytes == null ? "null" : bytes.readableBytes() + " bytes";
  }
}
