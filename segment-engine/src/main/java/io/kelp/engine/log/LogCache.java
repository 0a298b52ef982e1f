package io.kelp.engine.log;

import io.netty.buffer.ByteBuf;
import java.util.Map;
import java.util.TreeMap;

/**
 * The batches of one partition held in memory for reads: chunks just flushed and blocks recently
 * read from the store, by first offset, never overlapping. The engine-wide {@link TailCacheBudget}
 * decides what to evict.
 */
final class LogCache {
  private final TreeMap<Long, CachedRange> ranges = new TreeMap<>();
  private final TailCacheBudget budget;

  LogCache(TailCacheBudget budget) {
    this.budget = budget;
  }

  /**
   * Reads from the range holding the batch for {@code offset}; null on a miss. See {@link
   * CachedRange#slice}.
   */
  synchronized ReadPiece read(long offset, long limit, int maxBytes, boolean minOneBatch) {
    Map.Entry<Long, CachedRange> e = ranges.floorEntry(offset);
    if (e == null || !e.getValue().covers(offset)) {
      return null;
    }
    return e.getValue().slice(offset, limit, maxBytes, minOneBatch);
  }

  boolean enabled() {
    return budget.enabled();
  }

  /** The first offset of the first range above {@code offset}, or Long.MAX_VALUE. */
  synchronized long nextCachedOffset(long offset) {
    Long key = ranges.higherKey(offset);
    return key == null ? Long.MAX_VALUE : key;
  }

  /**
   * Adds whole batches (taking ownership of {@code data}) and takes a piece of them for a reader in
   * the same step, so that eviction cannot come between. Bytes overlapping a cached range are not
   * added (the caller trims them). Eviction runs after the lock is released.
   */
  ReadPiece addAndRead(
      ByteBuf data, long offset, long limit, int maxBytes, boolean minOneBatch, boolean keep) {
    CachedRange range;
    try {
      range = new CachedRange(data, this);
    } catch (RuntimeException e) {
      data.release();
      throw e;
    }
    ReadPiece piece =
        offset < 0 ? ReadPiece.NONE : range.slice(offset, limit, maxBytes, minOneBatch);
    if (!keep || !budget.enabled()) {
      range.release();
      return piece;
    }
    synchronized (this) {
      Map.Entry<Long, CachedRange> floor = ranges.floorEntry(range.firstOffset());
      Long higher = ranges.higherKey(range.firstOffset());
      boolean overlaps =
          (floor != null && floor.getValue().nextOffset() > range.firstOffset())
              || (higher != null && higher < range.nextOffset());
      if (overlaps) {
        range.release();
        return piece;
      }
      ranges.put(range.firstOffset(), range);
    }
    budget.added(range);
    return piece;
  }

  /** Removes a range chosen by the budget; false if it had already left. */
  synchronized boolean evict(CachedRange range) {
    if (range.removed) {
      return false;
    }
    ranges.remove(range.firstOffset(), range);
    range.removed = true;
    range.release();
    return true;
  }

  /** Drops ranges holding any offset in [from, to), e.g. after compaction rewrote them. */
  void invalidate(long from, long to) {
    long freed = 0;
    int count = 0;
    synchronized (this) {
      var it = ranges.values().iterator();
      while (it.hasNext()) {
        CachedRange r = it.next();
        if (r.firstOffset() < to && r.nextOffset() > from) {
          it.remove();
          r.removed = true;
          freed += r.sizeInBytes();
          count++;
          r.release();
        }
      }
    }
    budget.removed(count, freed);
  }

  void clear() {
    invalidate(Long.MIN_VALUE, Long.MAX_VALUE);
  }

  synchronized long sizeInBytes() {
    long size = 0;
    for (CachedRange r : ranges.values()) {
      size += r.sizeInBytes();
    }
    return size;
  }
}
