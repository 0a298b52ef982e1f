package io.kelp.engine.log;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unflushed bytes held by all partitions against EngineConfig.memoryMaxBytes. The engine never
 * refuses an append for memory; the gateway asks {@link #over()} and stops reading produce requests
 * until a listener says there is room again.
 */
final class MemoryBudget {
  private final long maxBytes;
  private final AtomicLong pending = new AtomicLong();
  private final ConcurrentLinkedQueue<Runnable> waiters = new ConcurrentLinkedQueue<>();
  private final Executor notifier;

  MemoryBudget(long maxBytes, Executor notifier) {
    this.maxBytes = maxBytes;
    this.notifier = notifier;
  }

  long pendingBytes() {
    return pending.get();
  }

  boolean over() {
    return pending.get() > maxBytes;
  }

  void reserve(long bytes) {
    pending.addAndGet(bytes);
  }

  void release(long bytes) {
    if (pending.addAndGet(-bytes) <= maxBytes && !waiters.isEmpty()) {
      notifyWaiters();
    }
  }

  /** Runs {@code listener} on an engine thread once pending bytes are within the budget. */
  void whenAvailable(Runnable listener) {
    waiters.add(listener);
    if (!over()) {
      notifyWaiters();
    }
  }

  private void notifyWaiters() {
    Runnable r;
    while (!over() && (r = waiters.poll()) != null) {
      try {
        notifier.execute(r);
      } catch (RejectedExecutionException e) {
        // The engine is shutting down: tell the listener on this thread instead.
        r.run();
      }
    }
  }
}
