package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;

/** Writing zig-zag varints and varlongs, the integer encoding inside records. */
final class Varint {
  private Varint() {}

  static int sizeOfVarint(int value) {
    return sizeOfUnsigned((value << 1) ^ (value >> 31));
  }

  static int sizeOfVarlong(long value) {
    long raw = (value << 1) ^ (value >> 63);
    int bits = 64 - Long.numberOfLeadingZeros(raw);
    return Math.max(1, (bits + 6) / 7);
  }

  private static int sizeOfUnsigned(int raw) {
    int bits = 32 - Integer.numberOfLeadingZeros(raw);
    return Math.max(1, (bits + 6) / 7);
  }

  static void writeVarint(ByteBuf out, int value) {
    int raw = (value << 1) ^ (value >> 31);
    while ((raw & ~0x7f) != 0) {
      out.writeByte((raw & 0x7f) | 0x80);
      raw >>>= 7;
    }
    out.writeByte(raw);
  }

  static void writeVarlong(ByteBuf out, long value) {
    long raw = (value << 1) ^ (value >> 63);
    while ((raw & ~0x7fL) != 0) {
      out.writeByte((int) (raw & 0x7f) | 0x80);
      raw >>>= 7;
    }
    out.writeByte((int) raw);
  }
}
