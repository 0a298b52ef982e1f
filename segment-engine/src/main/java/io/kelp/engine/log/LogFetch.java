package io.kelp.engine.log;

import io.kelp.engine.log.SegmentLog.State;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a fetch from one log: refuses it when this broker no longer owns the log or the offset is
 * outside it, reads up to the high watermark (the last stable offset for read_committed) through
 * the log's {@link LogReads}, and turns a failed read into a status for the fetch response.
 */
final class LogFetch {
  private static final Logger log = LoggerFactory.getLogger(LogFetch.class);

  private LogFetch() {}

  /** See {@link PartitionLog#read}. */
  static ReadResult read(
      SegmentLog l, long offset, int maxBytes, Isolation isolation, boolean minOneBatch) {
    Window w = window(l, offset, isolation);
    if (w.refused != null) {
      return w.refused;
    }
    ByteBuf out;
    try {
      out = l.reads.collect(offset, w.limit, maxBytes, minOneBatch);
    } catch (IOException | RuntimeException e) {
      if (e instanceof NoSuchFileException && offset < l.logStartOffset()) {
        return ReadResult.error(
            ReadResult.Status.OFFSET_OUT_OF_RANGE, w.hw, w.hw, l.logStartOffset());
      }
      readFailed(l, offset, e);
      return ReadResult.error(ReadResult.Status.STORE_ERROR, w.hw, w.hw, w.start);
    }
    return new ReadResult(
        ReadResult.Status.OK,
        out == null ? Unpooled.EMPTY_BUFFER : out,
        w.hw,
        l.lastStableOffset(),
        w.start,
        List.of());
  }

  /**
   * Logs a failed read (the fetch answers KAFKA_STORAGE_ERROR, which clients retry): once per
   * {@link #READ_FAILURE_QUIET_NANOS} per log, with how many failed since the last line, since a
   * consumer retries at once and a store that is away fails every read.
   */
  private static void readFailed(SegmentLog l, long offset, Exception e) {
    long failures = l.readFailures.incrementAndGet();
    long now = System.nanoTime();
    long until = l.readFailureQuietUntil.get();
    if (now - until < 0
        || !l.readFailureQuietUntil.compareAndSet(until, now + READ_FAILURE_QUIET_NANOS)) {
      return;
    }
    l.readFailures.addAndGet(-failures);
    log.warn(
        "{}: read at offset {} failed ({} failed read(s) since the last such line), the fetch"
            + " answers KAFKA_STORAGE_ERROR: {}",
        l.topicPartition(),
        offset,
        failures,
        e.toString());
  }

  /** Least time between two lines about one log's failed reads. */
  static final long READ_FAILURE_QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** See {@link PartitionLog#readCached}. */
  static ReadResult readCached(
      SegmentLog l, long offset, int maxBytes, Isolation isolation, boolean minOneBatch) {
    Window w = window(l, offset, isolation);
    if (w.refused != null) {
      return w.refused;
    }
    ByteBuf out = l.reads.collectCached(offset, w.limit, maxBytes, minOneBatch);
    if (out == null) {
      return null;
    }
    return new ReadResult(
        ReadResult.Status.OK, out, w.hw, l.lastStableOffset(), w.start, List.of());
  }

  /**
   * What a read at {@code offset} sees: the log start, the high watermark and the offset the
   * isolation level lets it read up to, or the answer when this log cannot serve it.
   */
  private record Window(long start, long hw, long limit, ReadResult refused) {}

  private static Window window(SegmentLog l, long offset, Isolation isolation) {
    long start = l.logStartOffset();
    long hw = l.highWatermark();
    long limit = isolation == Isolation.READ_COMMITTED ? l.lastStableOffset() : hw;
    return new Window(start, hw, limit, refusal(l, offset, start, hw));
  }

  /** The answer to a read this log cannot serve at {@code offset}, or null when it can. */
  private static ReadResult refusal(SegmentLog l, long offset, long start, long hw) {
    State s = l.state();
    if (s == State.FAILED || s == State.CLOSED || s == State.DISCARDING) {
      return ReadResult.error(ReadResult.Status.NOT_OWNER, hw, hw, start);
    }
    if (offset < start || offset > l.logEndOffset()) {
      return ReadResult.error(ReadResult.Status.OFFSET_OUT_OF_RANGE, hw, hw, start);
    }
    return null;
  }
}
