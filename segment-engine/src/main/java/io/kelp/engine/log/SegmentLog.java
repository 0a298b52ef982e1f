package io.kelp.engine.log;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.producer.BatchMetadata;
import io.kelp.engine.producer.ProducerStateTable;
import io.kelp.engine.producer.ProducerStateTable.ProducerAppend;
import io.kelp.engine.segment.Segment;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition: appends are checked and get offsets ({@link AppendValidator}) under a
 * lock and queue the bytes; the engine's {@link GroupCommitFlusher} calls {@link #flush}, which
 * decides by the log's state whether its {@link LogFlush} writes them through this log's {@link
 * SegmentWriter}, moving the high watermark, or drops them. Reads come from the {@link LogCache} or
 * the store ({@link LogFetch}, {@link LogReads}). Retention, DeleteRecords and compaction live in
 * {@link LogRetention} and {@link LogCleaner}.
 *
 * <p>Threads: appends on the caller's thread (never blocking on I/O); one flush at a time on an
 * engine io thread; reads on the caller's thread; retention and compaction on the engine's
 * maintenance thread.
 */
final class SegmentLog implements PartitionLog {
  private static final Logger log = LoggerFactory.getLogger(SegmentLog.class);

  enum State {
    OPEN,
    /** Closing cleanly: no new appends; the flusher writes what is pending, then checkpoints. */
    CLOSING,
    /** Being deleted: pending appends are dropped. */
    DISCARDING,
    CLOSED,
    /** Another owner fenced this one, or the store refused it for good. */
    FAILED
  }

  /** What a flush achieved. */
  enum FlushOutcome {
    DONE,
    RETRY
  }

  private final TopicPartition tp;
  private final String directory;
  private final int leaderEpoch;
  final EngineContext ctx;
  final Fence fence;
  final ConcurrentSkipListMap<Long, Segment> segments;
  final ProducerStateTable producers;
  final LogCache cache;
  private final SegmentWriter writer;
  private final AppendValidator validator;
  private final LogFlush writes;
  final LogReads reads;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicBoolean flushScheduled = new AtomicBoolean();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  /** Serialises retention, DeleteRecords and compaction, which change sealed segments. */
  final ReentrantLock maintenance = new ReentrantLock();

  private final Object metaLock = new Object();
  private long nextOffset;
  private volatile long logEndOffset;
  private volatile PartitionMeta meta;
  private volatile LogConfig config;
  private volatile State state = State.OPEN;

  /** The highest generation a cleaned segment of this log has had. */
  private int cleanerGeneration;

  /** The earliest delete horizon of a tombstone the cleaner kept: a clean is due then. */
  volatile long tombstoneHorizonMs = Long.MAX_VALUE;

  /**
   * Reads of this log that failed since the last line about them, and the System.nanoTime() before
   * which no such line is logged ({@link LogFetch}).
   */
  final AtomicLong readFailures = new AtomicLong();

  final AtomicLong readFailureQuietUntil = new AtomicLong(System.nanoTime());

  SegmentLog(
      TopicPartition tp,
      EngineContext ctx,
      Fence fence,
      LogConfig config,
      PartitionMeta meta,
      RecoveredLog recovered) {
    this.tp = tp;
    this.directory = fence.directory();
    this.leaderEpoch = (int) fence.epoch();
    this.ctx = ctx;
    this.fence = fence;
    this.config = config;
    this.meta = meta;
    this.segments = recovered.segments();
    this.producers = recovered.producers().copy();
    this.cache = new LogCache(ctx.tailCache());
    this.writer =
        new SegmentWriter(
            tp,
            ctx.store(),
            fence,
            ctx.alloc(),
            segments,
            recovered.producers(),
            recovered.active());
    this.validator = new AppendValidator(leaderEpoch, ctx.alloc());
    this.writes = new LogFlush(tp, writer, cache, ctx.memory(), recovered.nextOffset());
    StoreReads storeReads = new StoreReads(ctx.store(), segments, cache);
    ReadAhead readAhead =
        new ReadAhead(storeReads, cache, ctx.tailCache(), ctx.io(), () -> state == State.OPEN);
    this.reads = new LogReads(cache, storeReads, readAhead, ctx.alloc());
    for (Segment s : segments.values()) {
      cleanerGeneration = Math.max(cleanerGeneration, s.generation());
    }
    this.nextOffset = recovered.nextOffset();
    this.logEndOffset = nextOffset;
  }

  @Override
  public TopicPartition topicPartition() {
    return tp;
  }

  @Override
  public String directory() {
    return directory;
  }

  // ---------------------------------------------------------------- append

  @Override
  public AppendResult append(ByteBuf records, AppendOptions options) {
    LogConfig cfg = config;
    AppendResult result;
    lock.lock();
    try {
      if (state != State.OPEN) {
        return AppendResult.error(AppendResult.Status.NOT_OWNER, tp + " is not open: " + state);
      }
      ProducerAppend check = producers.begin();
      String invalid = validator.check(records, check, nextOffset);
      if (invalid != null) {
        return AppendResult.error(AppendResult.Status.INVALID_RECORD, tp + ": " + invalid);
      }
      if (check.outcome() != ProducerStateTable.Outcome.OK) {
        return rejected(check, cfg);
      }
      long appendTime = cfg.logAppendTime() ? options.nowMs() : -1;
      PendingChunk chunk = validator.assignOffsets(records, nextOffset, appendTime);
      check.commit();
      nextOffset = chunk.nextOffset;
      logEndOffset = chunk.nextOffset;
      writes.queue(chunk, options.awaited());
      result =
          new AppendResult(
              AppendResult.Status.OK,
              chunk.firstOffset,
              chunk.nextOffset - 1,
              appendTime,
              logStartOffset(),
              null,
              chunk.durable);
    } finally {
      lock.unlock();
    }
    scheduleFlush();
    ctx.flusher().nudge(options.awaited());
    return result;
  }

  private AppendResult rejected(ProducerAppend check, LogConfig cfg) {
    String message = tp + ": " + check.message();
    switch (check.outcome()) {
      case DUPLICATE -> {
        BatchMetadata dup = check.duplicate();
        CompletableFuture<Void> durable = writes.durableThrough(dup.lastOffset());
        return new AppendResult(
            AppendResult.Status.DUPLICATE,
            dup.firstOffset(),
            dup.lastOffset(),
            cfg.logAppendTime() ? dup.timestamp() : -1,
            logStartOffset(),
            message,
            durable);
      }
      case INVALID_PRODUCER_EPOCH -> {
        return AppendResult.error(AppendResult.Status.INVALID_PRODUCER_EPOCH, message);
      }
      default -> {
        return AppendResult.error(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, message);
      }
    }
  }

  void scheduleFlush() {
    if (flushScheduled.compareAndSet(false, true)) {
      ctx.flusher().schedule(this, false);
    }
  }

  /** Flushes at the next cycle whatever the flush delay: to close or roll. */
  private void scheduleUrgentFlush() {
    flushScheduled.set(true);
    ctx.flusher().schedule(this, true);
  }

  // ---------------------------------------------------------------- flush

  /**
   * Writes what is pending, then completes the durable futures of what was written and moves the
   * high watermark; or, as the log's state asks, finishes closing it or drops what is pending.
   * Called by the flusher on an io thread, never twice at once for one log.
   */
  FlushOutcome flush(long nowMs) {
    flushScheduled.set(false);
    State s = state;
    if (s == State.CLOSED || s == State.FAILED) {
      return FlushOutcome.DONE;
    }
    if (s == State.DISCARDING) {
      writes.dropPending(new IOException(tp + " was deleted"));
      finishClose();
      return FlushOutcome.DONE;
    }
    IOException error = writes.write(config, s == State.CLOSING, nowMs);
    if (error instanceof FencedException) {
      fail(error);
      return FlushOutcome.DONE;
    }
    if (error != null) {
      return FlushOutcome.RETRY;
    }
    if (s == State.CLOSING && writes.nothingPending()) {
      finishClose();
    }
    return FlushOutcome.DONE;
  }

  /**
   * After the log has been idle a while: makes its appends visible to readers of the store other
   * than this broker (SeaweedFS's own tools), which the store may not have done yet ({@link
   * io.kelp.engine.store.ObjectStore#publish}). Called by the flusher on an io thread, never at the
   * same time as a flush of this log.
   */
  FlushOutcome publish() {
    if (state != State.OPEN) {
      return FlushOutcome.DONE;
    }
    IOException error = writes.publish();
    if (error instanceof FencedException) {
      fail(error);
    }
    return FlushOutcome.DONE;
  }

  /** How long the flusher waits before retrying after failures, growing to 5 seconds. */
  long retryDelayMs() {
    return writes.retryDelayMs();
  }

  /** The store refused this owner: nothing pending can become durable here any more. */
  private void fail(IOException why) {
    state = State.FAILED;
    log.error(
        "{}: the partition is lost to another owner or the store refuses it; failing its"
            + " pending appends: {}",
        tp,
        why.getMessage());
    writes.dropPending(why);
    finishClose();
  }

  private void finishClose() {
    if (state != State.FAILED) {
      state = State.CLOSED;
    }
    cache.clear();
    closed.complete(null);
  }

  // ---------------------------------------------------------------- close

  /** Stops appends and asks the flusher to write everything and checkpoint; see {@link #closed}. */
  CompletableFuture<Void> beginClose() {
    lock.lock();
    try {
      if (state == State.OPEN) {
        state = State.CLOSING;
      }
    } finally {
      lock.unlock();
    }
    scheduleUrgentFlush();
    return closed;
  }

  /** Stops appends and drops what is pending, for a deleted partition. */
  CompletableFuture<Void> beginDiscard() {
    lock.lock();
    try {
      if (state == State.OPEN || state == State.CLOSING) {
        state = State.DISCARDING;
      }
    } finally {
      lock.unlock();
    }
    scheduleUrgentFlush();
    return closed;
  }

  /** After the flusher stopped for good: fails whatever is still pending. */
  void abandon(IOException why) {
    if (!closed.isDone()) {
      state = State.FAILED;
      writes.dropPending(why);
      finishClose();
    }
  }

  State state() {
    return state;
  }

  // ---------------------------------------------------------------- read

  @Override
  public ReadResult read(long offset, int maxBytes, Isolation isolation, boolean minOneBatch) {
    return LogFetch.read(this, offset, maxBytes, isolation, minOneBatch);
  }

  @Override
  public ReadResult readCached(
      long offset, int maxBytes, Isolation isolation, boolean minOneBatch) {
    return LogFetch.readCached(this, offset, maxBytes, isolation, minOneBatch);
  }

  // ---------------------------------------------------------------- offsets and state

  @Override
  public long logStartOffset() {
    return meta.logStartOffset();
  }

  @Override
  public long logEndOffset() {
    return logEndOffset;
  }

  @Override
  public long highWatermark() {
    return writes.highWatermark();
  }

  /** No transactions yet: the last stable offset is the high watermark. */
  @Override
  public long lastStableOffset() {
    return writes.highWatermark();
  }

  @Override
  public Optional<TimestampOffset> offsetForTimestamp(long timestamp) {
    return TimeLookups.offsetForTimestamp(this, timestamp);
  }

  @Override
  public Optional<TimestampOffset> maxTimestamp() {
    return TimeLookups.maxTimestamp(this);
  }

  @Override
  public DeleteRecordsResult deleteRecordsBefore(long offset) {
    return LogRetention.deleteRecordsBefore(this, offset);
  }

  @Override
  public EpochEndOffset endOffsetForEpoch(int epoch) {
    return meta.endOffsetFor(epoch, logEndOffset);
  }

  @Override
  public int leaderEpoch() {
    return leaderEpoch;
  }

  @Override
  public void updateConfig(LogConfig config) {
    this.config = config;
  }

  @Override
  public LogConfig config() {
    return config;
  }

  @Override
  public long sizeInBytes() {
    long size = 0;
    for (Segment s : segments.values()) {
      size += s.validLength();
    }
    return size + writes.pendingBytes();
  }

  @Override
  public CompletableFuture<Void> appendedWritten() {
    CompletableFuture<Void> written;
    lock.lock();
    try {
      written = writes.durableThrough(logEndOffset - 1);
    } finally {
      lock.unlock();
    }
    if (!written.isDone()) {
      ctx.flusher().nudge(true);
    }
    return written;
  }

  @Override
  public AutoCloseable onHighWatermark(Runnable listener) {
    AutoCloseable registration = writes.onHighWatermark(listener);
    // A fetch now waits on this log: what is pending should not be held back for larger writes.
    if (!writes.nothingPending()) {
      ctx.flusher().nudge(true);
    }
    return registration;
  }

  /**
   * Whether this log's next flush should start without the lazy delay: something waits for its
   * pending data, or the log is closing or being deleted.
   */
  boolean flushAwaited() {
    return state != State.OPEN || writes.awaited();
  }

  // ---------------------------------------------------------------- for maintenance

  PartitionMeta meta() {
    return meta;
  }

  /** Persists new metadata (a put under the fence), then makes it current. */
  void updateMeta(UnaryOperator<PartitionMeta> change) throws IOException {
    synchronized (metaLock) {
      PartitionMeta next = change.apply(meta);
      if (!next.equals(meta)) {
        next.write(ctx.store(), directory, fence);
        meta = next;
      }
    }
  }

  /** Asks the flusher to seal the active segment, so that maintenance may remove it. */
  void requestRoll() {
    writes.requestRoll();
    scheduleUrgentFlush();
  }

  /** A generation no segment of this log has had yet. Maintenance thread only. */
  int nextCleanerGeneration() {
    return ++cleanerGeneration;
  }

  ProducerStateTable durableProducers() {
    return writer.durableProducers();
  }

  void checkOwnership() throws IOException {
    writer.checkOwnership();
  }

  @Override
  public String toString() {
    return "log " + tp + " at " + directory;
  }
}
