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
  private static final int MAX_RANGES_AHEAD = 64;

  private final TreeMap<Long, CachedRange> ranges = new TreeMap<>();
  private final TailCacheBudget budget;

  /** How many times ranges were invalidated; a read ahead started before one is not kept. */
  private long invalidations;

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
    CachedRange range = e.getValue();
    ReadPiece piece = range.slice(offset, limit, maxBytes, minOneBatch);
    if (range.unreadAhead && !piece.isEmpty()) {
      range.unreadAhead = false;
      budget.aheadRead(range.sizeInBytes());
    }
    if (!piece.isEmpty() && piece.nextOffset() >= range.nextOffset()) {
      budget.readThrough(range);
    }
    return piece;
  }

  /**
   * The first offset from {@code offset} on that the cache does not hold, looking at most {@code
   * bytes} (and {@value #MAX_RANGES_AHEAD} ranges) ahead; -1 if all of that is cached.
   */
  synchronized long firstUncached(long offset, long bytes) {
    long pos = offset;
    long seen = 0;
    for (int i = 0; i < MAX_RANGES_AHEAD && seen < bytes; i++) {
      Map.Entry<Long, CachedRange> e = ranges.floorEntry(pos);
      if (e == null || !e.getValue().covers(pos)) {
        return pos;
      }
      seen += e.getValue().bytesFrom(pos);
      pos = e.getValue().nextOffset();
    }
    return -1;
  }

  synchronized long invalidations() {
    return invalidations;
  }

  /**
   * Adds whole batches read ahead of a reader (taking ownership of {@code data}), unless they
   * overlap a cached range or ranges were invalidated since {@code seenInvalidations}: then they
   * are released. Returns whether they were added.
   */
  boolean addReadAhead(ByteBuf data, long seenInvalidations) {
    CachedRange range;
    try {
      range = new CachedRange(data, this, true);
    } catch (RuntimeException e) {
      data.release();
      throw e;
    }
    synchronized (this) {
      if (invalidations != seenInvalidations || overlaps(range)) {
        range.release();
        return false;
      }
      ranges.put(range.firstOffset(), range);
      range.unreadAhead = true;
      budget.aheadAdded(range.sizeInBytes());
    }
    budget.added(range);
    return true;
  }

  private boolean overlaps(CachedRange range) {
    // Written batches arrive in offset order: most land after the last range, which the map finds
    // without comparing keys.
    Map.Entry<Long, CachedRange> last = ranges.lastEntry();
    if (last == null
        || (last.getKey() < range.firstOffset()
            && last.getValue().nextOffset() <= range.firstOffset())) {
      return false;
    }
    Map.Entry<Long, CachedRange> floor = ranges.floorEntry(range.firstOffset());
    Long higher = ranges.higherKey(range.firstOffset());
    return (floor != null && floor.getValue().nextOffset() > range.firstOffset())
        || (higher != null && higher < range.nextOffset());
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
   * Adds whole batches just written (taking ownership of {@code data}) and takes a piece of them
   * for a reader in the same step, so that eviction cannot come between. Bytes overlapping a cached
   * range are not added (the caller trims them). Eviction runs after the lock is released.
   */
  ReadPiece addAndRead(
      ByteBuf data, long offset, long limit, int maxBytes, boolean minOneBatch, boolean keep) {
    return add(data, false, offset, limit, maxBytes, minOneBatch, keep);
  }

  /** As {@link #addAndRead}, for whole batches a reader's miss read from the store. */
  ReadPiece addStoreReadAndRead(
      ByteBuf data, long offset, long limit, int maxBytes, boolean minOneBatch) {
    return add(data, true, offset, limit, maxBytes, minOneBatch, true);
  }

  private ReadPiece add(
      ByteBuf data,
      boolean fromStore,
      long offset,
      long limit,
      int maxBytes,
      boolean minOneBatch,
      boolean keep) {
    CachedRange range;
    try {
      range = new CachedRange(data, this, fromStore);
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
      if (overlaps(range)) {
        range.release();
        return piece;
      }
      ranges.put(range.firstOffset(), range);
    }
    budget.added(range);
    if (!piece.isEmpty() && piece.nextOffset() >= range.nextOffset()) {
      budget.readThrough(range); // its reader took it to the end already
    }
    return piece;
  }

  /** Removes a range chosen by the budget; false if it had already left. */
  synchronized boolean evict(CachedRange range) {
    if (range.removed) {
      return false;
    }
    ranges.remove(range.firstOffset(), range);
    range.removed = true;
    forgetReadAhead(range);
    range.release();
    return true;
  }

  /** Drops ranges holding any offset in [from, to), e.g. after compaction rewrote them. */
  void invalidate(long from, long to) {
    long freed = 0;
    int count = 0;
    synchronized (this) {
      invalidations++;
      var it = ranges.values().iterator();
      while (it.hasNext()) {
        CachedRange r = it.next();
        if (r.firstOffset() < to && r.nextOffset() > from) {
          it.remove();
          r.removed = true;
          forgetReadAhead(r);
          freed += r.sizeInBytes();
          count++;
          r.release();
        }
      }
    }
    budget.removed(count, freed);
  }

  private void forgetReadAhead(CachedRange range) {
    if (range.unreadAhead) {
      range.unreadAhead = false;
      budget.aheadRead(range.sizeInBytes());
    }
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
