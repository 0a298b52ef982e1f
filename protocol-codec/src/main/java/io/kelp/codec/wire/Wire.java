package io.kelp.codec.wire;

import io.netty.buffer.ByteBuf;
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

  /** The number of bytes of {@code value} as an unsigned varint. */
  public static int sizeOfUnsignedVarint(int value) {
    int bits = 32 - Integer.numberOfLeadingZeros(value);
    return Math.max(1, (bits + 6) / 7);
  }
}
