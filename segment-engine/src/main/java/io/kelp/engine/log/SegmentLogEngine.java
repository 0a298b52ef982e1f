package io.kelp.engine.log;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine over one store: the open partition logs, the group-commit flusher and its io threads,
 * the memory budget and tail cache shared by all logs, and the maintenance thread that runs
 * retention and compaction.
 */
final class SegmentLogEngine implements LogEngine {
  private static final Logger log = LoggerFactory.getLogger(SegmentLogEngine.class);
  static final long CLOSE_TIMEOUT_MS = 30_000;

  private final ObjectStore store;
  private final EngineConfig config;
  private final ExecutorService io;
  private final ScheduledExecutorService maintenance;
  private final EngineContext ctx;
  private final GroupCommitFlusher flusher;
  private final ConcurrentHashMap<TopicPartition, SegmentLog> logs = new ConcurrentHashMap<>();
  private final LogCleaner cleaner;
  private volatile boolean closed;

  SegmentLogEngine(ObjectStore store, EngineConfig config, ByteBufAllocator alloc) {
    this.store = store;
    this.config = config;
    this.io = Executors.newFixedThreadPool(Math.max(1, config.ioThreads()), threads("kelp-io"));
    this.maintenance = Executors.newSingleThreadScheduledExecutor(threads("kelp-log-maintenance"));
    MemoryBudget memory = new MemoryBudget(config.memoryMaxBytes(), io);
    this.flusher = new GroupCommitFlusher(config, memory, io, store.concurrentWrites());
    this.ctx =
        new EngineContext(
            store,
            config,
            alloc,
            memory,
            new TailCacheBudget(config.tailCacheBytes()),
            flusher,
            io);
    this.cleaner = new LogCleaner(config);
    flusher.start();
    long retention = Math.max(100, config.retentionCheckIntervalMs());
    maintenance.scheduleWithFixedDelay(
        this::runRetention, retention, retention, TimeUnit.MILLISECONDS);
    long cleaning = Math.max(100, config.cleanerBackoffMs());
    maintenance.scheduleWithFixedDelay(this::runCleaner, cleaning, cleaning, TimeUnit.MILLISECONDS);
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public PartitionLog open(TopicPartition tp, String directory, LogConfig config, long ownerEpoch)
      throws IOException {
    return open(tp, directory, config, ownerEpoch, false);
  }

  @Override
  public PartitionLog reopen(TopicPartition tp, String directory, LogConfig config, long ownerEpoch)
      throws IOException {
    return open(tp, directory, config, ownerEpoch, true);
  }

  private PartitionLog open(
      TopicPartition tp, String directory, LogConfig config, long ownerEpoch, boolean reopening)
      throws IOException {
    if (closed) {
      throw new IOException("the engine is closed");
    }
    if (ownerEpoch < 0 || ownerEpoch > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          tp + ": owner epoch " + ownerEpoch + " does not fit a partition leader epoch");
    }
    SegmentLog existing = logs.get(tp);
    if (existing != null
        && (existing.state() == SegmentLog.State.FAILED
            || existing.state() == SegmentLog.State.CLOSED)) {
      // A log lost to another owner stays visible (answering NOT_OWNER) until reopened.
      logs.remove(tp, existing);
      existing = null;
    }
    if (existing != null) {
      if (existing.directory().equals(directory) && existing.leaderEpoch() == ownerEpoch) {
        return existing;
      }
      throw new IllegalStateException(tp + " is already open at " + existing.directory());
    }
    long recorded = store.claim(directory, ownerEpoch);
    if (recorded != ownerEpoch) {
      throw new FencedException(
          tp + ": " + directory + " is owned with epoch " + recorded + ", above " + ownerEpoch);
    }
    Fence fence = new Fence(directory, ownerEpoch);
    Optional<PartitionMeta> stored = PartitionMeta.read(store, directory);
    PartitionMeta meta = stored.orElse(PartitionMeta.empty());
    long now = System.currentTimeMillis();
    RecoveredLog recovered =
        new LogRecovery(tp, store, fence, ctx.alloc(), config, now).recover(meta);
    if (reopening && stored.isEmpty()) {
      // Written on a partition's first open, so only a directory emptied by hand (or a crash
      // right after the topic's creation) lacks it.
      log.warn(
          "{}: {} has no {} though the partition existed: its directory was removed or emptied"
              + " outside the broker, and any data that was there is gone; it goes on from offset"
              + " {} with what is left",
          tp,
          directory,
          PartitionMeta.FILE,
          recovered.nextOffset());
    }
    PartitionMeta current = meta.withEpoch((int) ownerEpoch, recovered.nextOffset());
    if (!current.equals(meta) || store.stat(directory + "/" + PartitionMeta.FILE).isEmpty()) {
      current.write(store, directory, fence);
    }
    recovered.producers().expire(now, this.config.producerIdExpirationMs());
    SegmentLog opened = new SegmentLog(tp, ctx, fence, config, current, recovered);
    if (logs.putIfAbsent(tp, opened) != null) {
      throw new IllegalStateException(tp + " was opened twice at once");
    }
    return opened;
  }

  @Override
  public Optional<PartitionLog> get(TopicPartition tp) {
    return Optional.ofNullable(logs.get(tp));
  }

  @Override
  public void closePartition(TopicPartition tp) throws IOException {
    SegmentLog l = logs.get(tp);
    if (l == null) {
      return;
    }
    try {
      await(l.beginClose(), l);
    } finally {
      logs.remove(tp, l);
    }
  }

  @Override
  public void deletePartition(TopicPartition tp) throws IOException {
    SegmentLog l = logs.get(tp);
    if (l == null) {
      return;
    }
    try {
      await(l.beginDiscard(), l);
    } finally {
      logs.remove(tp, l);
    }
    l.maintenance.lock();
    try {
      store.delete(l.directory());
    } finally {
      l.maintenance.unlock();
    }
    log.info("{}: deleted {}", tp, l.directory());
  }

  private static void await(CompletableFuture<Void> done, SegmentLog l) throws IOException {
    try {
      done.get(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // The flusher still owns the pending bytes; it drops them once the store call returns.
      l.beginDiscard();
      throw new IOException(l + ": pending data could not be written within the close timeout");
    } catch (ExecutionException e) {
      throw new IOException(l + ": close failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(l + ": interrupted while closing", e);
    }
  }

  @Override
  public long pendingBytes() {
    return ctx.memory().pendingBytes();
  }

  @Override
  public boolean overMemoryBudget() {
    return ctx.memory().over();
  }

  @Override
  public ProduceConnection openProduceConnection() {
    return flusher.connections().open();
  }

  @Override
  public void whenMemoryAvailable(Runnable listener) {
    ctx.memory().whenAvailable(listener);
  }

  /** Retention over every open log, now. */
  void runRetention() {
    long now = System.currentTimeMillis();
    for (SegmentLog l : logs.values()) {
      if (l.state() != SegmentLog.State.OPEN) {
        continue;
      }
      try {
        LogRetention.run(l, now, config.producerIdExpirationMs());
      } catch (IOException | RuntimeException e) {
        log.warn("{}: retention failed: {}", l, e.toString());
      }
    }
  }

  /** Compaction of every open compacted log that needs it, now. */
  void runCleaner() {
    long now = System.currentTimeMillis();
    for (SegmentLog l : logs.values()) {
      if (l.state() != SegmentLog.State.OPEN || !l.config().compact()) {
        continue;
      }
      try {
        cleaner.clean(l, now, false);
      } catch (IOException | RuntimeException e) {
        log.warn("{}: compaction failed: {}", l, e.toString());
      }
    }
  }

  /**
   * Stops every thread at once without writing anything more, as if the process had died; what was
   * pending is lost. For crash tests.
   */
  void halt() throws InterruptedException {
    closed = true;
    maintenance.shutdownNow();
    flusher.halt();
    flusher.join(5_000);
    io.shutdownNow();
    io.awaitTermination(5, TimeUnit.SECONDS);
    if (!flusher.isAlive()) {
      // Only memory is given back; nothing reaches the store any more.
      for (SegmentLog l : logs.values()) {
        l.abandon(new IOException(l + ": the engine was halted"));
      }
    }
    logs.clear();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    maintenance.shutdownNow();
    List<SegmentLog> all = new ArrayList<>(logs.values());
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (SegmentLog l : all) {
      closing.add(l.beginClose());
    }
    try {
      CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new))
          .get(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.error("not every partition could be flushed before closing: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      flusher.stop(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!flusher.isAlive()) {
      // Pending bytes the flusher could not write are failed and freed; with the flusher stuck
      // in a store call they stay with it, since it still reads them.
      for (SegmentLog l : all) {
        l.abandon(new IOException(l + ": the engine closed before the data could be written"));
      }
    }
    logs.clear();
    io.shutdown();
    try {
      io.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
