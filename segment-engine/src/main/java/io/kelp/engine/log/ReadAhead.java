package io.kelp.engine.log;

import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a partition's store blocks into its cache before a sequential reader asks for them, so that
 * its next fetch is served from memory while it is still busy with the last one. After each read
 * that returned data, if the cache does not hold the next two blocks the reader will want, one
 * block is read on an engine io thread; at most one read-ahead per partition is in flight, and all
 * partitions together keep at most a quarter of the tail-cache budget read ahead but not yet read.
 */
final class ReadAhead {
  private static final Logger log = LoggerFactory.getLogger(ReadAhead.class);

  /** Larger reads are not worth holding for a reader that may never come back. */
  static final int MAX_BLOCK_BYTES = 8 << 20;

  private final StoreReads store;
  private final LogCache cache;
  private final TailCacheBudget budget;
  private final Executor io;
  private final BooleanSupplier open;
  private final AtomicBoolean running = new AtomicBoolean();

  ReadAhead(
      StoreReads store, LogCache cache, TailCacheBudget budget, Executor io, BooleanSupplier open) {
    this.store = store;
    this.cache = cache;
    this.budget = budget;
    this.io = io;
    this.open = open;
  }

  /**
   * Called after a read that returned data and ended before {@code next}; {@code limit} is where
   * the visible data ends and {@code maxBytes} what the reader asked for.
   */
  void after(long next, long limit, int maxBytes) {
    if (next >= limit || running.get() || !budget.enabled()) {
      return;
    }
    int block = Math.min(Math.max(StoreReads.READ_AHEAD_BYTES, maxBytes), MAX_BLOCK_BYTES);
    long from = cache.firstUncached(next, 2L * block);
    if (from < 0 || from >= limit || !budget.roomToReadAhead(block)) {
      return;
    }
    if (!running.compareAndSet(false, true)) {
      return;
    }
    try {
      io.execute(() -> run(from, block));
    } catch (RejectedExecutionException e) {
      // The engine is closing.
      running.set(false);
    }
  }

  private void run(long from, int block) {
    try {
      if (open.getAsBoolean()) {
        store.fill(from, block);
      }
    } catch (IOException | RuntimeException e) {
      // A reader that gets there reads the store itself and reports what fails.
      log.debug("read-ahead at offset {} failed: {}", from, e.toString());
    } finally {
      running.set(false);
    }
    if (!open.getAsBoolean()) {
      // Closed while reading: what was added after the close cleared the cache goes too.
      cache.clear();
    }
  }
}
