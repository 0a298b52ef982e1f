package io.kelp.engine.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a partition's store blocks into its cache before a sequential reader asks for them, so that
 * its next fetch is served from memory while it is still busy with the last one. After each read
 * that returned data, if the cache does not hold the next two blocks the reader will want, one
 * block is read on an engine io thread. A block does not go past the end of its segment, so where
 * segments are small (on SeaweedFS a segment takes a bounded number of appends, about 1 MB under
 * acks=all load) a second read-ahead may start at the next segment while the first still reads; at
 * most {@value #MAX_IN_FLIGHT} are in flight per partition, and all partitions together keep at
 * most a quarter of the tail-cache budget read ahead but not yet read.
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

  /** Read-aheads of one partition in flight at once. */
  static final int MAX_IN_FLIGHT = 2;

  /** How long a reader waits for a read-ahead of its block before reading the store itself. */
  static final long WAIT_MS = 1_000;

  /**
   * A read-ahead in flight: where it starts, its size, the offset it reads to if known in advance
   * (else -1), whether it is reading, when it ends.
   */
  private static final class InFlight {
    final long from;
    final int block;
    final long end;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    volatile boolean started;

    InFlight(long from, int block, long end) {
      this.from = from;
      this.block = block;
      this.end = end;
    }
  }

  /** The read-aheads in flight, in offset order; guarded by itself. */
  private final List<InFlight> inFlight = new ArrayList<>(MAX_IN_FLIGHT);

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
    if (next >= limit || !budget.enabled()) {
      return;
    }
    // Twice what the reader asks for: a reader takes a whole cached block and the start of the
    // next in one fetch, so blocks of its own size would fall behind it.
    int block =
        (int) Math.min(Math.max(StoreReads.READ_AHEAD_BYTES, 2L * maxBytes), MAX_BLOCK_BYTES);
    long from = cache.firstUncached(next, 2L * block);
    if (from < 0 || from >= limit || !budget.roomToReadAhead(block)) {
      return;
    }
    InFlight f;
    synchronized (inFlight) {
      if (inFlight.size() >= MAX_IN_FLIGHT) {
        return;
      }
      if (!inFlight.isEmpty()) {
        // Start after the last one in flight, if it is known where that one ends.
        InFlight last = inFlight.get(inFlight.size() - 1);
        if (from >= last.from) {
          if (last.end < 0) {
            return;
          }
          from = Math.max(from, last.end);
          if (from >= limit || cache.firstUncached(from, 1) != from) {
            return;
          }
        }
      }
      f = new InFlight(from, block, store.fillEnd(from, block));
      inFlight.add(f);
    }
    try {
      io.execute(() -> run(f));
    } catch (RejectedExecutionException e) {
      // The engine is closing.
      done(f);
    }
  }

  /**
   * Waits (on a thread that may block) for a read-ahead that is reading from {@code offset} or
   * before it, so that a reader who caught up with it does not read the same bytes again. Returns
   * whether it waited; the reader then looks in the cache again. A read-ahead still queued behind
   * other io work is not waited for.
   */
  boolean awaitBlockOf(long offset) {
    InFlight f = null;
    synchronized (inFlight) {
      for (InFlight candidate : inFlight) {
        if (candidate.from <= offset && (candidate.end < 0 || offset < candidate.end)) {
          f = candidate;
        }
      }
    }
    if (f == null || !f.started) {
      return false;
    }
    try {
      f.done.get(WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The reader reads the store itself.
    }
    return true;
  }

  private void done(InFlight f) {
    synchronized (inFlight) {
      inFlight.remove(f);
    }
    f.done.complete(null);
  }

  private void run(InFlight f) {
    f.started = true;
    try {
      // A reader may have read the block itself while this waited in the io queue.
      if (open.getAsBoolean() && cache.firstUncached(f.from, 1) == f.from) {
        store.fill(f.from, f.block);
      }
    } catch (IOException | RuntimeException e) {
      // A reader that gets there reads the store itself and reports what fails.
      log.debug("read-ahead at offset {} failed: {}", f.from, e.toString());
    } finally {
      done(f);
    }
    if (!open.getAsBoolean()) {
      // Closed while reading: what was added after the close cleared the cache goes too.
      cache.clear();
    }
  }
}
