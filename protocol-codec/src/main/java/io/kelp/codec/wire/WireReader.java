package io.kelp.codec.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads Kafka's primitive types from a buffer, with a sticky error instead of exceptions: the first
 * problem (too few bytes, a bad varint, a negative or oversized length, a null where none is
 * allowed) is recorded, and every later read returns a default without touching the buffer. Every
 * length read from the wire is checked against the bytes left before anything is allocated.
 *
 * <p>Buffer ownership: the reader does not retain or release its buffer. Slices it returns (records
 * fields) share the buffer's memory and are valid only while the caller keeps the buffer alive.
 */
public final class WireReader {
  private final ByteBuf buf;
  private String error;

  /** Reads {@code buf} from its reader index to its writer index, advancing the reader index. */
  public WireReader(ByteBuf buf) {
    this.buf = buf;
  }

  public boolean ok() {
    return error == null;
  }

  /** The first problem met, with the byte offset it was met at, or null. */
  public String error() {
    return error;
  }

  /** Records a problem; only the first one is kept. */
  public void fail(String problem) {
    if (error == null) {
      error = problem + " (at byte " + buf.readerIndex() + ")";
    }
  }

  public int remaining() {
    return buf.readableBytes();
  }

  public ByteBuf buffer() {
    return buf;
  }

  private boolean need(int bytes) {
    if (error != null) {
      return false;
    }
    if (buf.readableBytes() < bytes) {
      fail("truncated: needed " + bytes + " bytes, " + buf.readableBytes() + " left");
      return false;
    }
    return true;
  }

  public boolean readBool() {
    return need(1) && buf.readByte() != 0;
  }

  public byte readInt8() {
    return need(1) ? buf.readByte() : 0;
  }

  public short readInt16() {
    return need(2) ? buf.readShort() : 0;
  }

  public int readUint16() {
    return need(2) ? buf.readUnsignedShort() : 0;
  }

  public int readInt32() {
    return need(4) ? buf.readInt() : 0;
  }

  public long readUint32() {
    return need(4) ? buf.readUnsignedInt() : 0L;
  }

  public long readInt64() {
    return need(8) ? buf.readLong() : 0L;
  }

  public double readFloat64() {
    return need(8) ? buf.readDouble() : 0.0;
  }

  public UUID readUuid() {
    if (!need(16)) {
      return Wire.ZERO_UUID;
    }
    long msb = buf.readLong();
    long lsb = buf.readLong();
    return new UUID(msb, lsb);
  }

  /** An unsigned varint of at most five bytes that fits in 32 bits. */
  public int readUnsignedVarint() {
    long value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (!need(1)) {
        return 0;
      }
      byte b = buf.readByte();
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        if (value > 0xFFFFFFFFL) {
          fail("unsigned varint overflows 32 bits");
          return 0;
        }
        return (int) value;
      }
    }
    fail("unsigned varint longer than 5 bytes");
    return 0;
  }

  /** A zig-zag encoded signed varint (record fields). */
  public int readVarint() {
    int raw = readUnsignedVarint();
    return (raw >>> 1) ^ -(raw & 1);
  }

  /** A zig-zag encoded signed varlong of at most ten bytes (record fields). */
  public long readVarlong() {
    long value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (!need(1)) {
        return 0;
      }
      byte b = buf.readByte();
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return (value >>> 1) ^ -(value & 1);
      }
    }
    fail("varlong longer than 10 bytes");
    return 0;
  }

  /**
   * Reads a length: an int16 or int32 in classic versions, an unsigned varint holding length + 1 in
   * flexible ones. Returns -1 for null (recording an error if null is not allowed), or a length no
   * larger than the bytes left.
   */
  private int readLength(boolean flexible, boolean shortLength, boolean nullable, String field) {
    int length;
    if (flexible) {
      int raw = readUnsignedVarint();
      length = raw == 0 ? -1 : raw - 1;
      if (raw < 0) {
        fail("length of " + field + " is out of range");
        return 0;
      }
    } else {
      length = shortLength ? readInt16() : readInt32();
    }
    if (error != null) {
      return 0;
    }
    if (length < 0) {
      if (length != -1) {
        fail("negative length " + length + " for " + field);
        return 0;
      }
      if (!nullable) {
        fail("non-nullable field " + field + " was null");
        return 0;
      }
      return -1;
    }
    if (length > buf.readableBytes()) {
      fail(field + " claims " + length + " bytes, " + buf.readableBytes() + " left");
      return 0;
    }
    return length;
  }

  public String readString(boolean flexible, boolean nullable, String field) {
    int length = readLength(flexible, true, nullable, field);
    if (length < 0) {
      return null;
    }
    if (error != null) {
      return nullable ? null : "";
    }
    String s = buf.toString(buf.readerIndex(), length, StandardCharsets.UTF_8);
    buf.skipBytes(length);
    return s;
  }

  public byte[] readBytes(boolean flexible, boolean nullable, String field) {
    int length = readLength(flexible, false, nullable, field);
    if (length < 0) {
      return null;
    }
    if (error != null) {
      return nullable ? null : Wire.EMPTY_BYTES;
    }
    byte[] bytes = new byte[length];
    buf.readBytes(bytes);
    return bytes;
  }

  /** A records field as a slice of this reader's buffer (no copy); see the class comment. */
  public ByteBuf readRecords(boolean flexible, boolean nullable, String field) {
    int length = readLength(flexible, false, nullable, field);
    if (length < 0 || error != null) {
      return null;
    }
    return buf.readSlice(length);
  }

  /**
   * An array's element count, or -1 for a null array. A count larger than the bytes left is an
   * error (every element takes at least one byte), so callers may size collections by it.
   */
  public int readArrayLength(boolean flexible, boolean nullable, String field) {
    int count;
    if (flexible) {
      int raw = readUnsignedVarint();
      count = raw == 0 ? -1 : raw - 1;
      if (raw < 0) {
        fail("element count of " + field + " is out of range");
        return 0;
      }
    } else {
      count = readInt32();
    }
    if (error != null) {
      return 0;
    }
    if (count < 0) {
      if (count != -1) {
        fail("negative element count " + count + " for " + field);
        return 0;
      }
      if (!nullable) {
        fail("non-nullable array " + field + " was null");
        return 0;
      }
      return -1;
    }
    if (count > buf.readableBytes()) {
      fail(field + " claims " + count + " elements, " + buf.readableBytes() + " bytes left");
      return 0;
    }
    return count;
  }

  /** Checks a tagged field's declared size and returns the reader index where it must end. */
  public int beginTaggedField(int size) {
    if (error != null) {
      return buf.readerIndex();
    }
    if (size < 0 || size > buf.readableBytes()) {
      fail("tagged field claims " + size + " bytes, " + buf.readableBytes() + " left");
      return buf.readerIndex();
    }
    return buf.readerIndex() + size;
  }

  /** Checks that a known tagged field's content used exactly its declared size. */
  public void endTaggedField(int end, int tag) {
    if (error == null && buf.readerIndex() != end) {
      fail("tagged field " + tag + " did not match its declared size");
    }
  }

  public List<RawTaggedField> readUnknownTaggedField(List<RawTaggedField> list, int tag, int size) {
    if (error != null) {
      return list;
    }
    byte[] data = new byte[size];
    buf.readBytes(data);
    List<RawTaggedField> out = list == null ? new ArrayList<>(2) : list;
    out.add(new RawTaggedField(tag, data));
    return out;
  }
}
