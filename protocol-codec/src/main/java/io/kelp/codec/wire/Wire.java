package io.kelp.codec.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.List;
import java.util.UUID;

/** Constants and small helpers shared by the generated message classes. */
public final class Wire {
  private Wire() {}

  public static final byte[] EMPTY_BYTES = new byte[0];
  public static final UUID ZERO_UUID = new UUID(0L, 0L);

  /** Unknown tagged fields compare equal when both are absent or empty, else element-wise. */
  public static boolean sameTaggedFields(List<RawTaggedField> a, List<RawTaggedField> b) {
    boolean aEmpty = a == null || a.isEmpty();
    boolean bEmpty = b == null || b.isEmpty();
    if (aEmpty || bEmpty) {
      return aEmpty == bEmpty;
    }
    return a.equals(b);
  }

  public static String describe(byte[] bytes) {
    return bytes == null ? "null" : "bytes[" + bytes.length + "]";
  }

  public static String describe(ByteBuf buf) {
    return buf == null ? "null" : "records[" + buf.readableBytes() + "]";
  }

  public static String quote(String s) {
    return s == null ? "null" : "'" + s + "'";
  }

  /** Bytes taken by a length or count prefix; {@code length} -1 is null. */
  public static int sizeOfLength(boolean flexible, boolean shortLength, int length) {
    if (flexible) {
      return sizeOfUnsignedVarint(length + 1);
    }
    return shortLength ? 2 : 4;
  }

  public static int sizeOfString(boolean flexible, String value) {
    if (value == null) {
      return sizeOfLength(flexible, true, -1);
    }
    int length = ByteBufUtil.utf8Bytes(value);
    return sizeOfLength(flexible, true, length) + length;
  }

  public static int sizeOfBytes(boolean flexible, byte[] value) {
    if (value == null) {
      return sizeOfLength(flexible, false, -1);
    }
    return sizeOfLength(flexible, false, value.length) + value.length;
  }

  public static int sizeOfRecords(boolean flexible, ByteBuf value) {
    if (value == null) {
      return sizeOfLength(flexible, false, -1);
    }
    int length = value.readableBytes();
    return sizeOfLength(flexible, false, length) + length;
  }

  /** Bytes taken by raw tagged fields: tag, size and data of each. */
  public static int sizeOfTaggedFields(List<RawTaggedField> fields) {
    int size = 0;
    for (RawTaggedField f : fields) {
      size += sizeOfUnsignedVarint(f.tag()) + sizeOfUnsignedVarint(f.data().length);
      size += f.data().length;
    }
    return size;
  }

  /** The number of bytes of {@code value} as an unsigned varint. */
  public static int sizeOfUnsignedVarint(int value) {
    int bits = 32 - Integer.numberOfLeadingZeros(value);
    return Math.max(1, (bits + 6) / 7);
  }
}
