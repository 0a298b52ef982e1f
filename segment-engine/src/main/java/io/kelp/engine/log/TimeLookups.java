package io.kelp.engine.log;

import io.kelp.codec.record.InvalidRecordException;
import io.kelp.codec.record.Record;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordIterator;
import io.kelp.engine.segment.Segment;
import io.kelp.engine.segment.SegmentScanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * ListOffsets by timestamp and max timestamp: the segments' largest timestamps pick the segment,
 * its sparse time and offset indexes the position to start at, and a scan of that one segment (and
 * of the records of one batch) the answer. Only durable data below the high watermark counts.
 */
final class TimeLookups {
  /** The most a stored batch is inflated to when its records are read. */
  static final int MAX_UNCOMPRESSED_BYTES = 256 << 20;

  private TimeLookups() {}

  /**
   * The first record, in offset order, of the first batch whose max timestamp is at or after {@code
   * timestamp}, whose own timestamp is at or after it.
   */
  static Optional<TimestampOffset> offsetForTimestamp(SegmentLog log, long timestamp) {
    long start = log.logStartOffset();
    long hw = log.highWatermark();
    for (Segment s : log.segments.values()) {
      if (s.isEmpty() || s.nextOffset() <= start || s.maxTimestamp() < timestamp) {
        continue;
      }
      long from = s.baseOffset() + s.index().offsetBefore(timestamp);
      long position = s.index().positionFor(from - s.baseOffset());
      try {
        Optional<TimestampOffset> found = scan(log, s, position, timestamp, start, hw);
        if (found.isPresent()) {
          return found;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(log + ": time lookup failed in " + s.logPath(), e);
      }
    }
    return Optional.empty();
  }

  private static Optional<TimestampOffset> scan(
      SegmentLog log, Segment s, long position, long timestamp, long start, long hw)
      throws IOException {
    try (SegmentScanner scanner = scanner(log, s, position)) {
      while (scanner.next()) {
        RecordBatch batch = scanner.batch();
        if (batch.baseOffset() >= hw) {
          break;
        }
        if (batch.lastOffset() < start || batch.maxTimestamp() < timestamp || batch.isControl()) {
          continue;
        }
        Optional<TimestampOffset> found = firstRecord(batch, timestamp, start, false);
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.empty();
  }

  /** The record with the largest timestamp (the first of them), if the log has records. */
  static Optional<TimestampOffset> maxTimestamp(SegmentLog log) {
    long start = log.logStartOffset();
    long hw = log.highWatermark();
    Segment best = null;
    for (Segment s : log.segments.values()) {
      if (!s.isEmpty()
          && s.nextOffset() > start
          && s.offsetOfMaxTimestamp() >= 0
          && s.offsetOfMaxTimestamp() < hw
          && (best == null || s.maxTimestamp() > best.maxTimestamp())) {
        best = s;
      }
    }
    if (best == null) {
      return Optional.empty();
    }
    long batchOffset = best.offsetOfMaxTimestamp();
    long position = best.index().positionFor(batchOffset - best.baseOffset());
    try (SegmentScanner scanner = scanner(log, best, position)) {
      while (scanner.next()) {
        RecordBatch batch = scanner.batch();
        if (batch.lastOffset() >= batchOffset) {
          Optional<TimestampOffset> found =
              firstRecord(batch, best.maxTimestamp(), Long.MIN_VALUE, true);
          return found.isPresent()
              ? found
              : Optional.of(new TimestampOffset(best.maxTimestamp(), batch.baseOffset()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(log + ": max timestamp lookup failed", e);
    }
    return Optional.empty();
  }

  private static SegmentScanner scanner(SegmentLog log, Segment s, long position) {
    return new SegmentScanner(
        log.ctx.store(),
        s.logPath(),
        position,
        s.validLength(),
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        SegmentScanner.DEFAULT_BLOCK_SIZE,
        false);
  }

  private static Optional<TimestampOffset> firstRecord(
      RecordBatch batch, long timestamp, long start, boolean exact) {
    try (RecordIterator records = batch.records(MAX_UNCOMPRESSED_BYTES)) {
      while (records.hasNext()) {
        Record r = records.next();
        boolean match = exact ? r.timestamp() == timestamp : r.timestamp() >= timestamp;
        if (match && r.offset() >= start) {
          return Optional.of(new TimestampOffset(r.timestamp(), r.offset()));
        }
      }
    } catch (InvalidRecordException e) {
      // A batch that cannot be read has no answer to give; the caller moves on.
    }
    return Optional.empty();
  }
}
