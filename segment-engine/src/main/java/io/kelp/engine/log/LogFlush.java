package io.kelp.engine.log;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.store.FencedException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes one log's appends from queued to durable: writes the pending chunks through the log's
 * {@link SegmentWriter}, hands the written bytes to the {@link LogCache}, moves the high watermark,
 * completes the appends' durable futures and tells the high watermark listeners. It counts failed
 * writes for the flusher's back-off and drops what is pending when the log ends without writing it.
 * Which of these happens when (closing, deleting, fencing) is {@link SegmentLog}'s decision.
 *
 * <p>Threads: {@link #queue} and {@link #durableThrough} run under the log's append lock; {@link
 * #write} and {@link #dropPending} on the log's flush, which the engine runs one at a time (or once
 * the flusher has stopped for good).
 */
final class LogFlush {
  private static final Logger log = LoggerFactory.getLogger(LogFlush.class);

  private final TopicPartition tp;
  private final SegmentWriter writer;
  private final LogCache cache;
  private final MemoryBudget memory;
  private final PendingQueue pending = new PendingQueue();
  private final CopyOnWriteArrayList<Runnable> hwListeners = new CopyOnWriteArrayList<>();

  /** The durable future of the chunk queued last; under the log's append lock. */
  private CompletableFuture<Void> lastQueued = CompletableFuture.completedFuture(null);

  private volatile long highWatermark;
  private volatile boolean rollRequested;

  /**
   * Whether something waits for data queued since the last write began: an awaited append, or a
   * durable future handed out for pending data. Cleared when a write takes what is pending.
   */
  private volatile boolean awaited;

  private int failedFlushes;

  LogFlush(
      TopicPartition tp,
      SegmentWriter writer,
      LogCache cache,
      MemoryBudget memory,
      long highWatermark) {
    this.tp = tp;
    this.writer = writer;
    this.cache = cache;
    this.memory = memory;
    this.highWatermark = highWatermark;
  }

  /**
   * Queues the chunk of an append, in offset order, for the next flush; {@code awaited} if its
   * caller waits for it to be durable.
   */
  void queue(PendingChunk chunk, boolean awaited) {
    if (awaited) {
      this.awaited = true;
    }
    pending.add(chunk);
    lastQueued = chunk.durable;
    memory.reserve(chunk.size());
  }

  /** Completes once the records up to {@code offset} (queued already) are durable. */
  CompletableFuture<Void> durableThrough(long offset) {
    if (offset < highWatermark) {
      return CompletableFuture.completedFuture(null);
    }
    awaited = true;
    return lastQueued;
  }

  /**
   * Whether the next flush should not be held back: something waits for what is pending, or a fetch
   * waits for the high watermark to move.
   */
  boolean awaited() {
    return awaited || !hwListeners.isEmpty();
  }

  /**
   * Writes what is pending now, seals the active segment if a roll was asked for, and checkpoints
   * it if {@code checkpoint}; then completes what was written. Returns null when all of it went
   * well, else the error (a {@link FencedException} when another owner has the log); what was
   * written before the error is completed either way.
   */
  IOException write(LogConfig config, boolean checkpoint, long nowMs) {
    // Cleared before the snapshot: a waiter that comes later sets it again, whether or not its
    // chunk is in this write (if it is, the next cycle is merely not held back).
    awaited = false;
    List<PendingChunk> chunks = pending.snapshot();
    int written = 0;
    IOException error = null;
    try {
      while (written < chunks.size()) {
        written = writer.writeGroup(chunks, written, config, nowMs);
      }
      if (rollRequested) {
        writer.seal();
        rollRequested = false;
      }
      if (checkpoint) {
        writer.checkpoint();
      }
    } catch (IOException e) {
      error = e;
    } catch (RuntimeException e) {
      error = new IOException(e);
    }
    if (written > 0) {
      completeWritten(chunks.subList(0, written));
    }
    if (error instanceof FencedException) {
      return error;
    }
    if (error != null) {
      failedFlushes++;
      if (failedFlushes == 1 || failedFlushes % 100 == 0) {
        log.warn(
            "{}: writing to the store failed ({} attempts so far), retrying: {}",
            tp,
            failedFlushes,
            error.toString());
      }
      return error;
    }
    if (failedFlushes > 0) {
      log.info("{}: writing to the store works again after {} failures", tp, failedFlushes);
      failedFlushes = 0;
    }
    return null;
  }

  /**
   * Makes what was written visible to readers of the store other than this broker ({@link
   * SegmentWriter#publish}); null when done, else the error. A failure is tried again after the
   * next write.
   */
  IOException publish() {
    try {
      writer.publish();
      return null;
    } catch (FencedException e) {
      return e;
    } catch (IOException | RuntimeException e) {
      log.warn(
          "{}: listing its latest appends for other readers of the store failed; tried again"
              + " after its next write: {}",
          tp,
          e.toString());
      return e instanceof IOException io ? io : new IOException(e);
    }
  }

  /** How long the flusher waits before retrying after failures, growing to 5 seconds. */
  long retryDelayMs() {
    return Math.min(5000L, 10L << Math.min(9, Math.max(0, failedFlushes - 1)));
  }

  private void completeWritten(List<PendingChunk> written) {
    long bytes = 0;
    pending.removeFirst(written.size());
    for (PendingChunk chunk : written) {
      bytes += chunk.size();
      try {
        cache.addAndRead(chunk.data, -1, 0, 0, false, true);
      } catch (RuntimeException e) {
        // Only the cache misses out (the bytes were released); the data is durable.
        log.warn("{}: could not cache written batches: {}", tp, e.toString());
      }
    }
    highWatermark = written.get(written.size() - 1).nextOffset;
    memory.release(bytes);
    for (PendingChunk chunk : written) {
      chunk.durable.complete(null);
    }
    for (Runnable listener : hwListeners) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        log.warn("{}: a high watermark listener failed", tp, e);
      }
    }
  }

  /** Fails and releases everything pending: none of it will be written. */
  void dropPending(IOException why) {
    long bytes = 0;
    List<PendingChunk> dropped = pending.drain();
    for (PendingChunk chunk : dropped) {
      bytes += chunk.size();
      chunk.data.release();
      chunk.durable.completeExceptionally(why);
    }
    memory.release(bytes);
  }

  boolean nothingPending() {
    return pending.isEmpty();
  }

  long pendingBytes() {
    return pending.bytes();
  }

  /** Has the next flush seal the active segment. */
  void requestRoll() {
    rollRequested = true;
  }

  long highWatermark() {
    return highWatermark;
  }

  AutoCloseable onHighWatermark(Runnable listener) {
    hwListeners.add(listener);
    return () -> hwListeners.remove(listener);
  }
}
