package io.kelp.seaweed;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whole chunks read from volume servers, least recently used first out, within a byte budget. A
 * chunk's file id names bytes that never change, so an entry never goes stale; the budget is all
 * that bounds it. A sequential reader whose reads start inside a chunk it read before finds the
 * chunk here instead of fetching it again.
 */
final class ChunkCache {
  private final long maxBytes;
  private final LinkedHashMap<String, byte[]> chunks = new LinkedHashMap<>(256, 0.75f, true);
  private long bytes;

  /**
   * @param maxBytes the budget; 0 keeps nothing
   */
  ChunkCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Whether a chunk of {@code size} bytes is worth keeping: it takes at most a quarter. */
  boolean admits(long size) {
    return size <= maxBytes / 4;
  }

  synchronized byte[] get(String fileId) {
    return chunks.get(fileId);
  }

  synchronized void put(String fileId, byte[] data) {
    if (!admits(data.length)) {
      return;
    }
    byte[] old = chunks.put(fileId, data);
    bytes += data.length - (old == null ? 0 : old.length);
    Iterator<Map.Entry<String, byte[]>> it = chunks.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      bytes -= it.next().getValue().length;
      it.remove();
    }
  }

  synchronized long bytes() {
    return bytes;
  }
}
