package io.kelp.codec.record;

import java.util.Arrays;
import java.util.Objects;

/** One record header: a UTF-8 key that is never null and a value that may be. */
public final class RecordHeader {
  private final String key;
  private final byte[] value;

  public RecordHeader(String key, byte[] value) {
    this.key = Objects.requireNonNull(key, "header key");
    this.value = value;
  }

  public String key() {
    return key;
  }

  /** The value, or null; callers must not modify the array. */
  public byte[] value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordHeader other
        && key.equals(other.key)
        && Arrays.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "RecordHeader(" + key + ", " + (value == null ? "null" : value.length + " bytes") + ")";
  }
}
