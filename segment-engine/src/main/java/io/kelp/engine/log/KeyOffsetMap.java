package io.kelp.engine.log;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The compaction cleaner's map from record key to the last offset seen for it, in fixed memory as
 * Kafka's dedupe buffer: keys are stored as their 128-bit MD5 digest in an open-addressing table
 * that never grows; {@link #put} says when it is full. Not thread-safe.
 */
final class KeyOffsetMap {
  private static final int ENTRY_BYTES = 24;
  private static final double MAX_LOAD = 0.9;

  private final long[] his;
  private final long[] los;
  private final long[] offsets;
  private final int mask;
  private final int maxEntries;
  private final MessageDigest md5;
  private final byte[] digest = new byte[16];
  private int size;
  private long hi;
  private long lo;

  KeyOffsetMap(long memoryBytes) {
    long slots = Long.highestOneBit(Math.max(16, memoryBytes / ENTRY_BYTES));
    int capacity = (int) Math.min(slots, 1 << 28);
    this.his = new long[capacity];
    this.los = new long[capacity];
    this.offsets = new long[capacity];
    java.util.Arrays.fill(offsets, -1);
    this.mask = capacity - 1;
    this.maxEntries = (int) (capacity * MAX_LOAD);
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is missing from this JVM", e);
    }
  }

  int size() {
    return size;
  }

  boolean isFull() {
    return size >= maxEntries;
  }

  void clear() {
    java.util.Arrays.fill(offsets, -1);
    size = 0;
  }

  private void hash(ByteBuf key) {
    md5.reset();
    for (ByteBuffer part : key.nioBuffers(key.readerIndex(), key.readableBytes())) {
      md5.update(part);
    }
    try {
      md5.digest(digest, 0, 16);
    } catch (java.security.DigestException e) {
      throw new IllegalStateException(e);
    }
    hi = ByteBuffer.wrap(digest, 0, 8).getLong();
    lo = ByteBuffer.wrap(digest, 8, 8).getLong();
  }

  private int slot() {
    int i = (int) (lo ^ (lo >>> 32)) & mask;
    while (offsets[i] >= 0 && (his[i] != hi || los[i] != lo)) {
      i = (i + 1) & mask;
    }
    return i;
  }

  /** Records {@code offset} as the latest for {@code key}; false (nothing stored) when full. */
  boolean put(ByteBuf key, long offset) {
    hash(key);
    int i = slot();
    if (offsets[i] < 0) {
      if (isFull()) {
        return false;
      }
      his[i] = hi;
      los[i] = lo;
      size++;
    }
    offsets[i] = Math.max(offsets[i], offset);
    return true;
  }

  /** The latest offset recorded for {@code key}, or -1. */
  long get(ByteBuf key) {
    hash(key);
    return offsets[slot()];
  }
}
