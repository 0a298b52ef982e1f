package io.kelp.engine.log;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory all partitions' {@link LogCache}s may hold together (EngineConfig.tailCacheBytes):
 * once past it, ranges are evicted from whichever partition holds them: first ranges read from the
 * store that a reader has read to their end, then written ranges a reader has read to their end
 * (each in the order that happened), then the oldest added. So a consumer catching up from the
 * start of a log drops what it has read, not the recent tail it is about to reach; and so does a
 * second consumer that reads the log from its start after a first one read all of it, although the
 * tail it is about to reach was read through before the blocks it reads from the store. Were those
 * evicted in one order, each of its store reads would push out the next cached range it was about
 * to reach, and it would read the whole log from the store.
 */
final class TailCacheBudget {
  private final long maxBytes;
  private final AtomicLong used = new AtomicLong();
  private final ConcurrentLinkedQueue<CachedRange> order = new ConcurrentLinkedQueue<>();

  /**
   * Ranges read from the store that a reader has read to the end, first to go; they are in {@code
   * order} too.
   */
  private final ConcurrentLinkedQueue<CachedRange> storeReadThrough = new ConcurrentLinkedQueue<>();

  /** Written ranges a reader has read to the end, next to go; they are in {@code order} too. */
  private final ConcurrentLinkedQueue<CachedRange> readThrough = new ConcurrentLinkedQueue<>();

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
      CachedRange victim = storeReadThrough.poll();
      if (victim == null) {
        victim = readThrough.poll();
      }
      boolean early = victim != null;
      if (victim == null) {
        victim = order.poll();
      }
      if (victim == null) {
        break;
      }
      // A range sits in both queues; whichever entry comes second finds it gone already.
      if (!victim.removed && victim.owner.evict(victim)) {
        used.addAndGet(-victim.sizeInBytes());
        if (early) {
          // Its entry in `order` is now stale: count it so stale entries get purged.
          removed(1, 0);
        }
      }
    }
  }

  /** Marks a range a reader has read to its end, so it is evicted before unread ones. */
  void readThrough(CachedRange range) {
    if (!range.readThrough) {
      range.readThrough = true;
      (range.fromStore ? storeReadThrough : readThrough).add(range);
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
      readThrough.removeIf(r -> r.removed);
      storeReadThrough.removeIf(r -> r.removed);
    }
  }
}
