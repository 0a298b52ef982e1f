package io.kelp.engine.log;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory all partitions' {@link LogCache}s may hold together (EngineConfig.tailCacheBytes):
 * once past it, the oldest ranges, in the order they were added, are evicted from whichever
 * partition holds them.
 */
final class TailCacheBudget {
  private final long maxBytes;
  private final AtomicLong used = new AtomicLong();
  private final ConcurrentLinkedQueue<CachedRange> order = new ConcurrentLinkedQueue<>();
  private final AtomicInteger dropped = new AtomicInteger();

  /** Bytes read ahead of their readers that no read has taken from yet. */
  private final AtomicLong unreadAhead = new AtomicLong();

  TailCacheBudget(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  boolean enabled() {
    return maxBytes > 0;
  }

  /**
   * Whether {@code bytes} more may be read ahead: read-ahead not yet read may fill a quarter of the
   * budget, so that it cannot push out what readers are reading now.
   */
  boolean roomToReadAhead(long bytes) {
    return enabled() && unreadAhead.get() + bytes <= maxBytes / 4;
  }

  void aheadAdded(long bytes) {
    unreadAhead.addAndGet(bytes);
  }

  /** Counts off a read-ahead range that was read, or evicted before it was. */
  void aheadRead(long bytes) {
    unreadAhead.addAndGet(-bytes);
  }

  long usedBytes() {
    return used.get();
  }

  /** Counts a range just added to a cache, then evicts the oldest while over the budget. */
  void added(CachedRange range) {
    used.addAndGet(range.sizeInBytes());
    order.add(range);
    while (used.get() > maxBytes) {
      CachedRange oldest = order.poll();
      if (oldest == null) {
        break;
      }
      if (oldest.owner.evict(oldest)) {
        used.addAndGet(-oldest.sizeInBytes());
      }
    }
  }

  /**
   * Counts off {@code ranges} ranges of {@code bytes} a cache dropped by itself; their queue
   * entries are skipped when reached, and purged when they pile up.
   */
  void removed(int ranges, long bytes) {
    if (bytes > 0) {
      used.addAndGet(-bytes);
    }
    if (ranges > 0 && dropped.addAndGet(ranges) > 4096) {
      dropped.set(0);
      order.removeIf(r -> r.removed);
    }
  }
}
