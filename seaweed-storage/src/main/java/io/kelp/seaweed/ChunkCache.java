package io.kelp.seaweed;

import io.netty.buffer.ByteBuf;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whole chunks read from volume servers, least recently used first out, within a byte budget. A
 * chunk's file id names bytes that never change, so an entry never goes stale; the budget is all
 * that bounds it. A sequential reader whose reads start inside a chunk it read before finds the
 * chunk here instead of fetching it again.
 *
 * <p>Buffers: the cache holds one reference to each chunk it keeps and releases it when the chunk
 * leaves; {@link #get} hands out a reference of the caller's own.
 */
final class ChunkCache {
  private final long maxBytes;
  private final LinkedHashMap<String, ByteBuf> chunks = new LinkedHashMap<>(256, 0.75f, true);
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

  /** The chunk, as a buffer the caller releases, or null. */
  synchronized ByteBuf get(String fileId) {
    ByteBuf chunk = chunks.get(fileId);
    return chunk == null ? null : chunk.retainedDuplicate();
  }

  /** Keeps {@code data} (taking a reference of its own, the caller keeps its one), if admitted. */
  synchronized void put(String fileId, ByteBuf data) {
    if (!admits(data.readableBytes())) {
      return;
    }
    ByteBuf old = chunks.put(fileId, data.retainedDuplicate());
    bytes += data.readableBytes();
    if (old != null) {
      bytes -= old.readableBytes();
      old.release();
    }
    Iterator<Map.Entry<String, ByteBuf>> it = chunks.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      ByteBuf evicted = it.next().getValue();
      bytes -= evicted.readableBytes();
      evicted.release();
      it.remove();
    }
  }

  synchronized long bytes() {
    return bytes;
  }

  /** Releases every chunk kept. */
  synchronized void clear() {
    chunks.values().forEach(ByteBuf::release);
    chunks.clear();
    bytes = 0;
  }
}
