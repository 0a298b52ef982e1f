package io.kelp.engine.log;

import io.kelp.engine.store.ConcurrentWrites;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for all partitions of an engine. One thread runs cycles: take every partition with
 * pending data, flush them all in parallel on the io threads (one store append per partition and
 * segment, however many appends it holds), wait for the cycle to end, repeat. Appends that arrive
 * during a cycle go together in the next one, so the store sees few, large writes under load and
 * small, immediate ones when idle. Flushing each partition on its own as soon as its previous flush
 * ended was measured slower, on the local store and on SeaweedFS alike: without the shared cycle
 * each partition's writes are smaller and more numerous.
 *
 * <p>A cycle waits at most {@link #STALL_MS} for any one partition: a write still running then (a
 * slow volume server, a filer retrying) goes on by itself, its partition sits out the cycles until
 * it ends, and the other partitions keep being flushed meanwhile, so one slow write does not stall
 * them.
 *
 * <p>A partition written alone cycle after cycle ({@link #INLINE_AFTER_CYCLES} cycles in a row, as
 * when the broker's only busy partition has a producer) is written on the flusher thread itself
 * rather than handed to an io thread and waited for: that hand-off woke two threads per cycle,
 * about a tenth of the broker's CPU at one partition. Where several partitions are busy, cycles of
 * one partition come between others (a producer's sticky partitioner fills one partition's batch at
 * a time), and there writing them on the flusher thread was measured slower: the hand-off's delay
 * let each write gather more. A watchdog thread keeps the stall bound for the writes on the flusher
 * thread: once one has run for {@link #STALL_MS}, a new flusher thread takes over the cycles, and
 * the old one ends after its write, as a write that outlasted its cycle does.
 *
 * <p>With flushMaxDelayMs above 0 a cycle waits up to that long after the first pending append, or
 * until flushMaxBytes are pending, trading latency for larger writes. With flushGatherMs above 0 a
 * cycle waits, up to that long after the first pending append, while a produce connection is still
 * sending the requests its client held back during the previous write (see {@link
 * ProduceConnections}): they are then written together, in one cycle, once its answers let them go.
 * A partition whose flush failed is retried after a growing delay without holding up the others.
 *
 * <p>With flushLazyMs above 0, a cycle in which nothing waits for any partition's pending data
 * (only acks=0 and acks=1 appends, no fetch waiting for the high watermark) waits up to that long
 * after the first pending append, or until flushMaxBytes are pending: such data goes to the store
 * in fewer, larger writes, which cost SeaweedFS far less per byte. An append that is waited for, or
 * a fetch that starts waiting, ends the wait at once.
 *
 * <p>The store hears of each cycle's writers ({@link ConcurrentWrites}), so that it can send their
 * round trips together.
 *
 * <p>A log written to and then left alone for {@link #PUBLISH_IDLE_MS} goes through a cycle of its
 * own that publishes it ({@link SegmentLog#publish}): a store that acknowledged its appends before
 * every reader of the store could see them (SeaweedFS, where SeaweedFS's own tools would miss the
 * latest chunks) writes down what they miss. Under load no log is idle, so this costs nothing then.
 */
final class GroupCommitFlusher {
  private static final Logger log = LoggerFactory.getLogger(GroupCommitFlusher.class);

  /**
   * How long a cycle waits for one partition's write before the next cycle starts without it: well
   * above a normal write on a local disk or SeaweedFS under load, so cycles keep batching.
   */
  static final long STALL_MS = 50;

  /**
   * How long a log is left alone after a write before it is published ({@link SegmentLog#publish}).
   */
  static final long PUBLISH_IDLE_MS = 1000;

  private final long maxDelayNanos;
  private final long maxBytes;

  /** How long a cycle may wait when nothing waits for its data (0: no longer than maxDelay). */
  private final long lazyNanos;

  /**
   * How long a cycle may wait for the requests that produce connections are still sending (0: it
   * does not wait).
   */
  private final long gatherNanos;

  private final ProduceConnections connections;

  private final MemoryBudget memory;
  private final Executor io;
  private final int ioThreads;
  private final ConcurrentWrites writes;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  /** Logs to flush, with the System.nanoTime() before which each must not be retried. */
  private final LinkedHashMap<SegmentLog, Long> dirty = new LinkedHashMap<>();

  /** Logs whose write outlasted its cycle and still runs; guarded by {@link #lock}. */
  private final Set<SegmentLog> lagging = new HashSet<>();

  /**
   * Logs written to and not published since, with the System.nanoTime() from which to publish them,
   * in that order; guarded by {@link #lock}.
   */
  private final LinkedHashMap<SegmentLog, Long> unpublished = new LinkedHashMap<>();

  /** The thread that runs the cycles; another one takes over from a write that stalls. */
  private volatile Thread thread;

  /** Hands the cycles to a new thread when a write on the flusher thread stalls. */
  private final Thread watchdog;

  /** The write running on the flusher thread, if any. */
  private volatile InlineWrite inline;

  /** Whether the watchdog waits for the next write on the flusher thread to start. */
  private volatile boolean watchdogParked;

  /**
   * How many cycles in a row must have been of one log alone before its cycles are written on the
   * flusher thread.
   */
  static final int INLINE_AFTER_CYCLES = 16;

  /** The log of the last cycles if each had only it, and how many such cycles ran in a row. */
  private SegmentLog aloneLog;

  private int aloneCycles;

  /** Whether the cycles have ended for good: the watchdog then ends too. */
  private volatile boolean finished;

  /** A cycle's only write, run on the flusher thread. */
  private static final class InlineWrite {
    final SegmentLog log;
    final long startNanos;

    /** Whether another thread took over the cycles meanwhile; guarded by {@link #lock}. */
    boolean handedOff;

    InlineWrite(SegmentLog log, long startNanos) {
      this.log = log;
      this.startNanos = startNanos;
    }
  }

  private long firstDirtyNanos;
  private boolean urgentPending;
  private volatile boolean delaying;

  /** Whether the current wait is the lazy one, which an awaited append or a waiting fetch ends. */
  private volatile boolean lazy;

  private volatile boolean gathering;
  private volatile boolean stopping;
  private volatile boolean halted;

  GroupCommitFlusher(
      EngineConfig config, MemoryBudget memory, Executor io, ConcurrentWrites writes) {
    this.maxDelayNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.flushMaxDelayMs()));
    this.maxBytes = config.flushMaxBytes();
    this.lazyNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.flushLazyMs()));
    this.gatherNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.flushGatherMs()));
    this.memory = memory;
    this.io = io;
    this.ioThreads = Math.max(1, config.ioThreads());
    this.writes = writes;
    this.connections = new ProduceConnections(System::nanoTime, this::connectionComplete);
    this.thread = newFlusherThread();
    this.watchdog = new Thread(this::watch, "kelp-flusher-watchdog");
    this.watchdog.setDaemon(true);
  }

  private Thread newFlusherThread() {
    Thread t = new Thread(this::run, "kelp-flusher");
    t.setDaemon(true);
    return t;
  }

  void start() {
    thread.start();
    watchdog.start();
  }

  /**
   * Queues {@code log} for the next cycle; an {@code urgent} one (closing, rolling) starts that
   * cycle without waiting for flushMaxDelayMs.
   */
  void schedule(SegmentLog log, boolean urgent) {
    lock.lock();
    try {
      if (dirty.isEmpty()) {
        firstDirtyNanos = System.nanoTime();
      }
      dirty.putIfAbsent(log, 0L);
      urgentPending |= urgent;
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  /** The connections whose requests a cycle may wait for. */
  ProduceConnections connections() {
    return connections;
  }

  /**
   * After an append, or when a fetch starts waiting on a log ({@code awaited}: something now waits
   * for pending data): ends a delayed wait early once enough bytes are pending, and a lazy wait
   * once something waits; cheap when not waiting.
   */
  void nudge(boolean awaited) {
    if ((awaited && lazy) || (delaying && memory.pendingBytes() >= maxBytes)) {
      signal();
    }
  }

  /**
   * A connection has all its requests in, or closed: ends a wait for it; cheap when not waiting.
   */
  private void connectionComplete() {
    if (gathering) {
      signal();
    }
  }

  private void signal() {
    lock.lock();
    try {
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  private void retryLater(SegmentLog log, long delayMs) {
    lock.lock();
    try {
      long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
      dirty.merge(log, at, Math::max);
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  /** The logs of one cycle, and whether it publishes them rather than writes them. */
  private record Cycle(List<SegmentLog> logs, boolean publish) {}

  private void run() {
    boolean handedOff = false;
    try {
      while (true) {
        Cycle cycle = nextCycle();
        if (cycle == null) {
          return;
        }
        if (!flushAll(cycle.logs(), cycle.publish())) {
          handedOff = true;
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      log.error("the flusher stopped unexpectedly", e);
      throw e;
    } finally {
      if (!handedOff) {
        finished = true;
        LockSupport.unpark(watchdog);
      }
    }
  }

  /**
   * Writes a cycle's logs; false if this thread stopped being the flusher meanwhile (its write on
   * this thread stalled, and another thread runs the cycles now).
   */
  private boolean flushAll(List<SegmentLog> cycle, boolean publish) throws InterruptedException {
    if (cycle.size() == 1) {
      SegmentLog l = cycle.get(0);
      aloneCycles = l == aloneLog ? Math.min(aloneCycles + 1, INLINE_AFTER_CYCLES) : 1;
      aloneLog = l;
      if (aloneCycles >= INLINE_AFTER_CYCLES) {
        return flushInline(l, publish);
      }
    } else {
      aloneLog = null;
      aloneCycles = 0;
    }
    List<CompletableFuture<SegmentLog.FlushOutcome>> futures = new ArrayList<>(cycle.size());
    // As many writers start at once as there are io threads for them.
    writes.expect(Math.min(cycle.size(), ioThreads));
    for (SegmentLog l : cycle) {
      futures.add(CompletableFuture.supplyAsync(() -> flushAsWriter(l, publish), io));
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STALL_MS);
    for (int i = 0; i < cycle.size(); i++) {
      SegmentLog l = cycle.get(i);
      CompletableFuture<SegmentLog.FlushOutcome> f = futures.get(i);
      SegmentLog.FlushOutcome outcome;
      try {
        outcome = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        lagBehind(l, f, publish);
        continue;
      } catch (ExecutionException e) {
        outcome = SegmentLog.FlushOutcome.RETRY; // flushOne catches; not expected
      }
      if (outcome == SegmentLog.FlushOutcome.RETRY) {
        retryLater(l, l.retryDelayMs());
      } else if (!publish) {
        written(l);
      }
    }
    return true;
  }

  /** Writes a cycle's only log on this thread; false if the watchdog handed the cycles over. */
  private boolean flushInline(SegmentLog l, boolean publish) {
    writes.expect(1);
    InlineWrite w = new InlineWrite(l, System.nanoTime());
    inline = w;
    if (watchdogParked) {
      LockSupport.unpark(watchdog);
    }
    SegmentLog.FlushOutcome outcome;
    try {
      outcome = flushAsWriter(l, publish);
    } catch (Error e) {
      // as a write on an io thread would end: the log is retried and the flusher goes on
      log.error("{}: flush failed unexpectedly", l, e);
      outcome = SegmentLog.FlushOutcome.RETRY;
    }
    lock.lock();
    try {
      inline = null;
      if (w.handedOff) {
        lagEnded(l, outcome, publish);
        return false;
      }
    } finally {
      lock.unlock();
    }
    if (outcome == SegmentLog.FlushOutcome.RETRY) {
      retryLater(l, l.retryDelayMs());
    } else if (!publish) {
      written(l);
    }
    return true;
  }

  /**
   * The watchdog: while writes run on the flusher thread, looks at them every {@link #STALL_MS}
   * (each write lasts about a millisecond under load) and hands the cycles to a new thread when one
   * has run that long; parks after a second without any.
   */
  private void watch() {
    long idleNanos = TimeUnit.SECONDS.toNanos(1);
    long stallNanos = TimeUnit.MILLISECONDS.toNanos(STALL_MS);
    long lastSeen = System.nanoTime();
    while (!finished) {
      InlineWrite w = inline;
      long now = System.nanoTime();
      if (w != null) {
        lastSeen = now;
        long left = w.startNanos + stallNanos - now;
        if (left <= 0) {
          handOff(w);
          LockSupport.parkNanos(stallNanos);
        } else {
          LockSupport.parkNanos(left);
        }
      } else if (now - lastSeen < idleNanos) {
        LockSupport.parkNanos(stallNanos);
      } else {
        // Set before looking again: a write that starts meanwhile is either seen here or sees
        // this and unparks.
        watchdogParked = true;
        if (inline == null && !finished) {
          LockSupport.park(this);
        }
        watchdogParked = false;
        lastSeen = System.nanoTime();
      }
    }
  }

  /** Lets the stalled write {@code w} end on its thread, and starts a new flusher thread. */
  private void handOff(InlineWrite w) {
    lock.lock();
    try {
      if (inline != w || w.handedOff) {
        return; // it ended meanwhile
      }
      w.handedOff = true;
      lagging.add(w.log);
      Thread next = newFlusherThread();
      thread = next;
      next.start();
    } finally {
      lock.unlock();
    }
  }

  /** {@code l} was written to: it is published once left alone for {@link #PUBLISH_IDLE_MS}. */
  private void written(SegmentLog l) {
    lock.lock();
    try {
      unpublished.remove(l);
      unpublished.put(l, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PUBLISH_IDLE_MS));
    } finally {
      lock.unlock();
    }
  }

  /** Lets {@code l}'s write finish on its own; the log rejoins the cycles when it does. */
  private void lagBehind(
      SegmentLog l, CompletableFuture<SegmentLog.FlushOutcome> write, boolean publish) {
    lock.lock();
    try {
      lagging.add(l);
    } finally {
      lock.unlock();
    }
    write.whenComplete(
        (outcome, error) -> {
          lock.lock();
          try {
            lagEnded(l, outcome, publish);
          } finally {
            lock.unlock();
          }
        });
  }

  /**
   * A write that outlasted its cycle ended ({@code outcome} null if it failed unexpectedly): its
   * log rejoins the cycles. Under {@link #lock}.
   */
  private void lagEnded(SegmentLog l, SegmentLog.FlushOutcome outcome, boolean publish) {
    lagging.remove(l);
    if (outcome != SegmentLog.FlushOutcome.DONE) {
      long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(l.retryDelayMs());
      dirty.merge(l, at, Math::max);
    } else if (!publish) {
      unpublished.remove(l);
      unpublished.put(l, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PUBLISH_IDLE_MS));
    }
    changed.signal();
  }

  /**
   * {@link #flushOne} (or {@link SegmentLog#publish}), told to the store as one of the writers
   * running at once.
   */
  private SegmentLog.FlushOutcome flushAsWriter(SegmentLog l, boolean publish) {
    writes.started();
    try {
      return publish ? publishOne(l) : flushOne(l);
    } finally {
      writes.done();
    }
  }

  private SegmentLog.FlushOutcome publishOne(SegmentLog l) {
    try {
      return l.publish();
    } catch (RuntimeException e) {
      log.error("{}: publishing failed unexpectedly", l, e);
      return SegmentLog.FlushOutcome.DONE;
    }
  }

  private SegmentLog.FlushOutcome flushOne(SegmentLog l) {
    try {
      return l.flush(System.currentTimeMillis());
    } catch (RuntimeException e) {
      log.error("{}: flush failed unexpectedly", l, e);
      return SegmentLog.FlushOutcome.RETRY;
    }
  }

  /** Waits for the logs of the next cycle; null once stopped with nothing left, or halted. */
  private Cycle nextCycle() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        if (halted || (stopping && dirty.isEmpty() && lagging.isEmpty())) {
          return null;
        }
        long now = System.nanoTime();
        long wakeAt = Long.MAX_VALUE;
        List<SegmentLog> due = new ArrayList<>();
        for (Map.Entry<SegmentLog, Long> e : dirty.entrySet()) {
          if (lagging.contains(e.getKey())) {
            continue; // it rejoins, with a signal, when its write ends
          }
          long notBefore = e.getValue();
          if (notBefore - now > 0) {
            wakeAt = Math.min(wakeAt, notBefore);
            continue;
          }
          due.add(e.getKey());
        }
        boolean gather = false;
        boolean lazyWait = false;
        if (!due.isEmpty()) {
          long delay = maxDelayNanos;
          if (lazyNanos > maxDelayNanos) {
            // Set before looking: an append or fetch that starts waiting meanwhile either is seen
            // here or sees this and signals (it then waits for the lock until this thread waits).
            lazy = true;
            if (anyAwaited(due)) {
              lazy = false;
            } else {
              delay = lazyNanos;
              lazyWait = true;
            }
          }
          long dueAt = firstDirtyNanos + delay;
          boolean urgent = stopping || urgentPending || memory.pendingBytes() >= maxBytes;
          // set before asking, so that a connection completed meanwhile signals (under the lock,
          // which this thread holds until it waits)
          this.gathering = true;
          long gatherUntil = 0;
          if (gatherNanos > 0 && !urgent && connections.stillSending()) {
            gatherUntil = firstDirtyNanos + gatherNanos;
            if (now - gatherUntil >= 0) {
              connections.gaveUp();
              gatherUntil = 0;
            }
          }
          if (gatherUntil != 0) {
            gather = true;
            wakeAt = Math.min(wakeAt, gatherUntil);
          } else if (delay == 0 || urgent || now >= dueAt) {
            for (SegmentLog l : due) {
              dirty.remove(l);
            }
            firstDirtyNanos = now;
            urgentPending = false;
            this.gathering = false;
            lazy = false;
            return new Cycle(due, false);
          } else {
            wakeAt = Math.min(wakeAt, dueAt);
          }
        }
        if (due.isEmpty() && !stopping) {
          List<SegmentLog> idle = new ArrayList<>();
          for (Map.Entry<SegmentLog, Long> e : unpublished.entrySet()) {
            if (e.getValue() - now > 0) {
              wakeAt = Math.min(wakeAt, e.getValue()); // later ones come later still
              break;
            }
            if (!dirty.containsKey(e.getKey()) && !lagging.contains(e.getKey())) {
              idle.add(e.getKey());
            }
          }
          if (!idle.isEmpty()) {
            idle.forEach(unpublished::remove);
            return new Cycle(idle, true);
          }
        }
        delaying = !due.isEmpty() && !gather;
        lazy = delaying && lazyWait;
        this.gathering = gather;
        if (wakeAt == Long.MAX_VALUE) {
          changed.await();
        } else {
          changed.awaitNanos(wakeAt - now);
        }
        delaying = false;
        lazy = false;
      }
    } finally {
      lock.unlock();
    }
  }

  private static boolean anyAwaited(List<SegmentLog> logs) {
    for (SegmentLog l : logs) {
      if (l.flushAwaited()) {
        return true;
      }
    }
    return false;
  }

  /** Waits at most {@code timeoutMs} for the flusher thread, or the one that took over, to end. */
  void join(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      Thread t = thread;
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return;
      }
      t.join(left);
      if (thread == t) {
        return;
      }
    }
  }

  /**
   * Whether the flusher may still touch pending data: its thread runs, or a write that outlasted
   * its cycle has not ended yet.
   */
  boolean isAlive() {
    if (thread.isAlive()) {
      return true;
    }
    lock.lock();
    try {
      return !lagging.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /** Stops the thread after the current cycle, whatever is queued. */
  void halt() {
    lock.lock();
    try {
      halted = true;
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Lets queued work finish, then stops the thread; waits at most {@code timeoutMs}, after which
   * the thread is halted and returns false.
   */
  boolean stop(long timeoutMs) throws InterruptedException {
    lock.lock();
    try {
      stopping = true;
      changed.signal();
    } finally {
      lock.unlock();
    }
    join(timeoutMs);
    if (thread.isAlive()) {
      lock.lock();
      try {
        halted = true;
        changed.signal();
      } finally {
        lock.unlock();
      }
      join(timeoutMs);
      return false;
    }
    return true;
  }
}
