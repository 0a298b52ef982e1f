package io.kelp.codec.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.UUID;

/**
 * Writes Kafka's primitive types. In copying mode everything goes into one buffer. In zero-copy
 * mode (see {@link #zeroCopy}) large records fields are not copied: the output becomes a composite
 * buffer whose components are the bytes written so far and retained slices of the records.
 *
 * <p>Buffer ownership: records passed to {@link #writeRecords} are never released by the writer; in
 * zero-copy mode it retains the slices it keeps, and the buffer returned by {@link #finish()} owns
 * those references.
 */
public final class WireWriter {
  private static final int FIRST_CHUNK = 256;

  private final ByteBufAllocator allocator;
  private final int zeroCopyThreshold;
  private ByteBuf current;
  // Zero-copy mode: where in `current` each large records field goes, and the records themselves
  // (retained slices). All other bytes stay in the one buffer `current`; finish() interleaves.
  private int[] splits;
  private ByteBuf[] records;
  private int recordCount;
  private long recordBytes;

  private WireWriter(ByteBufAllocator allocator, ByteBuf target, int zeroCopyThreshold) {
    this.allocator = allocator;
    this.current = target;
    this.zeroCopyThreshold = zeroCopyThreshold;
  }

  /** A writer that appends everything to {@code target}. */
  public WireWriter(ByteBuf target) {
    this(null, target, Integer.MAX_VALUE);
  }

  /**
   * A writer that copies records fields smaller than {@code threshold} bytes and adds larger ones
   * to the output as retained slices.
   */
  public static WireWriter zeroCopy(ByteBufAllocator allocator, int threshold) {
    return new WireWriter(allocator, allocator.buffer(FIRST_CHUNK), threshold);
  }

  /**
   * The written bytes. In copying mode, the target given to the constructor; in zero-copy mode, a
   * buffer the caller now owns and must release.
   */
  public ByteBuf finish() {
    if (recordCount == 0) {
      return current;
    }
    ByteBuf[] parts = new ByteBuf[2 * recordCount + 1];
    int n = 0;
    int previous = 0;
    for (int i = 0; i < recordCount; i++) {
      if (splits[i] > previous) {
        parts[n++] = current.retainedSlice(previous, splits[i] - previous);
      }
      parts[n++] = records[i];
      previous = splits[i];
    }
    if (current.writerIndex() > previous) {
      parts[n++] = current.retainedSlice(previous, current.writerIndex() - previous);
    }
    current.release();
    current = null;
    CompositeByteBuf out = allocator.compositeBuffer(n);
    out.addComponents(true, java.util.Arrays.copyOf(parts, n));
    return out;
  }

  /**
   * Releases everything written so far, for a caller that gives up before {@link #finish()}: in
   * zero-copy mode the buffer and the retained records; in copying mode nothing (the target is the
   * caller's).
   */
  public void abandon() {
    for (int i = 0; i < recordCount; i++) {
      records[i].release();
    }
    recordCount = 0;
    if (allocator != null && current != null) {
      current.release();
      current = null;
    }
  }

  /** Bytes written so far. */
  public int size() {
    return (int) (recordBytes + current.readableBytes());
  }

  /** A small copying writer for a tagged field's value, to learn its size before writing it. */
  public WireWriter scratch() {
    return new WireWriter(Unpooled.buffer(64));
  }

  public void writeBool(boolean value) {
    current.writeByte(value ? 1 : 0);
  }

  public void writeInt8(byte value) {
    current.writeByte(value);
  }

  public void writeInt16(short value) {
    current.writeShort(value);
  }

  public void writeUint16(int value) {
    if (value < 0 || value > 0xFFFF) {
      throw new IllegalArgumentException("uint16 out of range: " + value);
    }
    current.writeShort(value);
  }

  public void writeInt32(int value) {
    current.writeInt(value);
  }

  public void writeUint32(long value) {
    if (value < 0 || value > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("uint32 out of range: " + value);
    }
    current.writeInt((int) value);
  }

  public void writeInt64(long value) {
    current.writeLong(value);
  }

  public void writeFloat64(double value) {
    current.writeDouble(value);
  }

  public void writeUuid(UUID value) {
    requireNonNull(value, "uuid");
    current.writeLong(value.getMostSignificantBits());
    current.writeLong(value.getLeastSignificantBits());
  }

  public void writeUnsignedVarint(int value) {
    while ((value & 0xffffff80) != 0) {
      current.writeByte((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    current.writeByte(value);
  }

  public void writeVarint(int value) {
    writeUnsignedVarint((value << 1) ^ (value >> 31));
  }

  public void writeVarlong(long value) {
    long v = (value << 1) ^ (value >> 63);
    while ((v & 0xffffffffffffff80L) != 0L) {
      current.writeByte(((int) v & 0x7f) | 0x80);
      v >>>= 7;
    }
    current.writeByte((int) v);
  }

  private void writeNull(boolean flexible, boolean shortLength, boolean nullable, String field) {
    if (!nullable) {
      throw new IllegalStateException("non-nullable field " + field + " is null");
    }
    if (flexible) {
      writeUnsignedVarint(0);
    } else if (shortLength) {
      current.writeShort(-1);
    } else {
      current.writeInt(-1);
    }
  }

  private void writeLength(boolean flexible, boolean shortLength, int length) {
    if (flexible) {
      writeUnsignedVarint(length + 1);
    } else if (shortLength) {
      current.writeShort(length);
    } else {
      current.writeInt(length);
    }
  }

  public void writeString(boolean flexible, String value, boolean nullable, String field) {
    if (value == null) {
      writeNull(flexible, true, nullable, field);
      return;
    }
    int length = ByteBufUtil.utf8Bytes(value);
    if (!flexible && length > Short.MAX_VALUE) {
      throw new IllegalArgumentException(field + " is too long: " + length + " bytes");
    }
    writeLength(flexible, true, length);
    ByteBufUtil.reserveAndWriteUtf8(current, value, length);
  }

  public void writeBytes(boolean flexible, byte[] value, boolean nullable, String field) {
    if (value == null) {
      writeNull(flexible, false, nullable, field);
      return;
    }
    writeLength(flexible, false, value.length);
    current.writeBytes(value);
  }

  /** Writes a records field; the readable bytes of {@code records} are written, not consumed. */
  public void writeRecords(boolean flexible, ByteBuf records, boolean nullable, String field) {
    if (records == null) {
      writeNull(flexible, false, nullable, field);
      return;
    }
    int length = records.readableBytes();
    writeLength(flexible, false, length);
    if (length < zeroCopyThreshold) {
      current.writeBytes(records, records.readerIndex(), length);
      return;
    }
    if (splits == null) {
      splits = new int[8];
      this.records = new ByteBuf[8];
    } else if (recordCount == splits.length) {
      splits = java.util.Arrays.copyOf(splits, recordCount * 2);
      this.records = java.util.Arrays.copyOf(this.records, recordCount * 2);
    }
    splits[recordCount] = current.writerIndex();
    this.records[recordCount] = records.retainedSlice();
    recordCount++;
    recordBytes += length;
  }

  public void writeArrayLength(boolean flexible, int count) {
    writeLength(flexible, false, count);
  }

  public void writeNullArray(boolean flexible, boolean nullable, String field) {
    writeNull(flexible, false, nullable, field);
  }

  /** Writes a tagged field whose value was written into {@code value}, and releases it. */
  public void writeTaggedField(int tag, WireWriter value) {
    ByteBuf bytes = value.finish();
    try {
      writeUnsignedVarint(tag);
      writeUnsignedVarint(bytes.readableBytes());
      current.writeBytes(bytes);
    } finally {
      bytes.release();
    }
  }

  /** Writes a tagged field holding null in compact form: size 1, then the null marker 0. */
  public void writeTaggedNull(int tag, boolean nullable, String field) {
    if (!nullable) {
      throw new IllegalStateException("non-nullable field " + field + " is null");
    }
    writeUnsignedVarint(tag);
    writeUnsignedVarint(1);
    writeUnsignedVarint(0);
  }

  /**
   * Writes the unknown tagged fields from index {@code from} whose tags are below {@code belowTag},
   * keeping all tagged fields in ascending tag order; returns the index of the first one not
   * written.
   */
  public int writeUnknownTaggedFields(List<RawTaggedField> fields, int from, int belowTag) {
    if (fields == null) {
      return from;
    }
    int i = from;
    while (i < fields.size() && fields.get(i).tag() < belowTag) {
      RawTaggedField f = fields.get(i);
      writeUnsignedVarint(f.tag());
      writeUnsignedVarint(f.data().length);
      current.writeBytes(f.data());
      i++;
    }
    return i;
  }

  /** Returns {@code value}, or throws if a field the version requires was left null. */
  public <T> T requireNonNull(T value, String field) {
    if (value == null) {
      throw new IllegalStateException("non-nullable field " + field + " is null");
    }
    return value;
  }
}
