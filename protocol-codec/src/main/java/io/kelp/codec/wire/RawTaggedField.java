package io.kelp.codec.wire;

import java.util.Arrays;

/** A tagged field this codec has no definition for: its tag and its bytes, kept as read. */
public record RawTaggedField(int tag, byte[] data) {
  @Override
  public boolean equals(Object other) {
    return other instanceof RawTaggedField that
        && tag == that.tag
        && Arrays.equals(data, that.data);
  }

  @Override
  public int hashCode() {
    return 31 * tag + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "RawTaggedField(tag=" + tag + ", size=" + data.length + ")";
  }
}
