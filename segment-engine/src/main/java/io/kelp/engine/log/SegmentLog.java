package io.kelp.engine.log;

import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatches;
import io.kelp.engine.TopicPartition;
import io.kelp.engine.producer.BatchMetadata;
import io.kelp.engine.producer.ProducerStateTable;
import io.kelp.engine.producer.ProducerStateTable.ProducerAppend;
import io.kelp.engine.segment.Segment;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition: appends assign offsets under a lock and queue the bytes; the engine's
 * {@link GroupCommitFlusher} writes them with {@link #flush}, through this log's {@link
 * SegmentWriter}, and moves the high watermark; reads come from the {@link LogCache} or the store.
 * Retention, DeleteRecords and compaction live in {@link LogRetention} and {@link LogCleaner}.
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
  private final LogReads reads;
  private final ReentrantLock lock = new ReentrantLock();
  private final PendingQueue pending = new PendingQueue();
  private final AtomicBoolean flushScheduled = new AtomicBoolean();
  private final CopyOnWriteArrayList<Runnable> hwListeners = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  /** Serialises retention, DeleteRecords and compaction, which change sealed segments. */
  final ReentrantLock maintenance = new ReentrantLock();

  private final Object metaLock = new Object();
  private long nextOffset;
  private CompletableFuture<Void> lastDurable = CompletableFuture.completedFuture(null);
  private volatile long logEndOffset;
  private volatile long highWatermark;
  private volatile PartitionMeta meta;
  private volatile LogConfig config;
  private volatile State state = State.OPEN;
  private volatile boolean rollRequested;
  private int failedFlushes;

  /** The highest generation a cleaned segment of this log has had. */
  private int cleanerGeneration;

  /** The earliest delete horizon of a tombstone the cleaner kept: a clean is due then. */
  volatile long tombstoneHorizonMs = Long.MAX_VALUE;

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
    StoreReads storeReads = new StoreReads(ctx.store(), segments, cache);
    ReadAhead readAhead =
        new ReadAhead(storeReads, cache, ctx.tailCache(), ctx.io(), () -> state == State.OPEN);
    this.reads = new LogReads(cache, storeReads, readAhead, ctx.alloc());
    for (Segment s : segments.values()) {
      cleanerGeneration = Math.max(cleanerGeneration, s.generation());
    }
    this.nextOffset = recovered.nextOffset();
    this.logEndOffset = nextOffset;
    this.highWatermark = nextOffset;
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
      long offset = nextOffset;
      int batches = 0;
      RecordBatches.Walker walker = RecordBatches.walk(records);
      while (walker.hasNext()) {
        RecordBatch batch = walker.next();
        if (batch.lastOffsetDelta() < 0) {
          return invalid("batch with lastOffsetDelta " + batch.lastOffsetDelta());
        }
        if (!check.check(batch, offset)) {
          return rejected(check, cfg);
        }
        offset += batch.lastOffsetDelta() + 1L;
        batches++;
      }
      if (batches == 0 || walker.end() != RecordBatches.End.COMPLETE) {
        return invalid(walker.problem() == null ? "no record batch" : walker.problem());
      }
      long appendTime = cfg.logAppendTime() ? options.nowMs() : -1;
      PendingChunk chunk = assignOffsets(records, appendTime);
      check.commit();
      nextOffset = chunk.nextOffset;
      logEndOffset = chunk.nextOffset;
      pending.add(chunk);
      lastDurable = chunk.durable;
      ctx.memory().reserve(chunk.size());
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
    ctx.flusher().nudge();
    return result;
  }

  /** Copies the records once into pooled memory and rewrites offsets and leader epoch there. */
  private PendingChunk assignOffsets(ByteBuf records, long appendTime) {
    int size = records.readableBytes();
    ByteBuf copy = ctx.alloc().directBuffer(size, size);
    copy.writeBytes(records, records.readerIndex(), size);
    long offset = nextOffset;
    RecordBatches.Walker walker = RecordBatches.walk(copy);
    while (walker.hasNext()) {
      RecordBatch batch = walker.next();
      batch.setBaseOffset(offset);
      batch.setPartitionLeaderEpoch(leaderEpoch);
      if (appendTime >= 0) {
        batch.setLogAppendTime(appendTime);
      }
      offset = batch.nextOffset();
    }
    return new PendingChunk(copy, nextOffset, offset);
  }

  private AppendResult invalid(String why) {
    return AppendResult.error(AppendResult.Status.INVALID_RECORD, tp + ": " + why);
  }

  private AppendResult rejected(ProducerAppend check, LogConfig cfg) {
    String message = tp + ": " + check.message();
    switch (check.outcome()) {
      case DUPLICATE -> {
        BatchMetadata dup = check.duplicate();
        CompletableFuture<Void> durable =
            dup.lastOffset() < highWatermark
                ? CompletableFuture.completedFuture(null)
                : lastDurable;
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
   * high watermark. Called by the flusher on an io thread, never twice at once for one log.
   */
  FlushOutcome flush(long nowMs) {
    flushScheduled.set(false);
    State s = state;
    if (s == State.CLOSED || s == State.FAILED) {
      return FlushOutcome.DONE;
    }
    if (s == State.DISCARDING) {
      dropPending(new IOException(tp + " was deleted"));
      finishClose();
      return FlushOutcome.DONE;
    }
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
      if (s == State.CLOSING) {
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
      fail(error);
      return FlushOutcome.DONE;
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
      return FlushOutcome.RETRY;
    }
    if (failedFlushes > 0) {
      log.info("{}: writing to the store works again after {} failures", tp, failedFlushes);
      failedFlushes = 0;
    }
    if (s == State.CLOSING && pending.isEmpty()) {
      finishClose();
    }
    return FlushOutcome.DONE;
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
    ctx.memory().release(bytes);
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

  /** The store refused this owner: nothing pending can become durable here any more. */
  private void fail(IOException why) {
    state = State.FAILED;
    log.error(
        "{}: the partition is lost to another owner or the store refuses it; failing its"
            + " pending appends: {}",
        tp,
        why.getMessage());
    dropPending(why);
    finishClose();
  }

  private void dropPending(IOException why) {
    long bytes = 0;
    List<PendingChunk> dropped = pending.drain();
    for (PendingChunk chunk : dropped) {
      bytes += chunk.size();
      chunk.data.release();
      chunk.durable.completeExceptionally(why);
    }
    ctx.memory().release(bytes);
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
      dropPending(why);
      finishClose();
    }
  }

  State state() {
    return state;
  }

  // ---------------------------------------------------------------- read

  @Override
  public ReadResult read(long offset, int maxBytes, Isolation isolation, boolean minOneBatch) {
    long start = logStartOffset();
    long hw = highWatermark;
    State s = state;
    if (s == State.FAILED || s == State.CLOSED || s == State.DISCARDING) {
      return ReadResult.error(ReadResult.Status.NOT_OWNER, hw, hw, start);
    }
    if (offset < start || offset > logEndOffset) {
      return ReadResult.error(ReadResult.Status.OFFSET_OUT_OF_RANGE, hw, hw, start);
    }
    long limit = isolation == Isolation.READ_COMMITTED ? lastStableOffset() : hw;
    ByteBuf out;
    try {
      out = reads.collect(offset, limit, maxBytes, minOneBatch);
    } catch (IOException | RuntimeException e) {
      if (e instanceof NoSuchFileException && offset < logStartOffset()) {
        return ReadResult.error(ReadResult.Status.OFFSET_OUT_OF_RANGE, hw, hw, logStartOffset());
      }
      log.warn("{}: read at offset {} failed: {}", tp, offset, e.toString());
      return ReadResult.error(ReadResult.Status.STORE_ERROR, hw, hw, start);
    }
    return new ReadResult(
        ReadResult.Status.OK,
        out == null ? Unpooled.EMPTY_BUFFER : out,
        hw,
        lastStableOffset(),
        start,
        List.of());
  }

  @Override
  public ReadResult readCached(
      long offset, int maxBytes, Isolation isolation, boolean minOneBatch) {
    long start = logStartOffset();
    long hw = highWatermark;
    State s = state;
    if (s == State.FAILED || s == State.CLOSED || s == State.DISCARDING) {
      return ReadResult.error(ReadResult.Status.NOT_OWNER, hw, hw, start);
    }
    if (offset < start || offset > logEndOffset) {
      return ReadResult.error(ReadResult.Status.OFFSET_OUT_OF_RANGE, hw, hw, start);
    }
    long limit = isolation == Isolation.READ_COMMITTED ? lastStableOffset() : hw;
    ByteBuf out = reads.collectCached(offset, limit, maxBytes, minOneBatch);
    if (out == null) {
      return null;
    }
    return new ReadResult(ReadResult.Status.OK, out, hw, lastStableOffset(), start, List.of());
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
    return highWatermark;
  }

  /** No transactions yet: the last stable offset is the high watermark. */
  @Override
  public long lastStableOffset() {
    return highWatermark;
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
    return size + pending.bytes();
  }

  @Override
  public AutoCloseable onHighWatermark(Runnable listener) {
    hwListeners.add(listener);
    return () -> hwListeners.remove(listener);
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
    rollRequested = true;
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
