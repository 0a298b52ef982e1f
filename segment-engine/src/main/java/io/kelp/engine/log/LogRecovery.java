package io.kelp.engine.log;

import io.kelp.codec.record.RecordBatch;
import io.kelp.engine.TopicPartition;
import io.kelp.engine.producer.ProducerStateTable;
import io.kelp.engine.segment.Segment;
import io.kelp.engine.segment.SegmentScanner;
import io.kelp.engine.segment.SegmentSidecar;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory as it was left, cleanly or by a crash:
 *
 * <ol>
 *   <li>list the segments and drop leftovers of interrupted compaction or retention;
 *   <li>trust sealed segments' sidecars; rebuild a missing or damaged one by scanning its segment
 *       (never past the next segment's base offset);
 *   <li>scan the last segment from its start, or from its checkpoint sidecar, checking every batch
 *       (length, magic, CRC, offsets): the first bad or partial batch ends the valid data, and the
 *       bytes after it are a torn tail. The store cannot truncate, so the segment is sealed at its
 *       valid length (its sidecar written now) and appends continue in a new segment; a segment
 *       with no valid byte at all is deleted;
 *   <li>restore the producer state from the newest snapshot and replay the batches after it.
 * </ol>
 */
final class LogRecovery {
  private static final Logger log = LoggerFactory.getLogger(LogRecovery.class);
  private static final long PROGRESS_EVERY_NANOS = 5_000_000_000L;

  private final TopicPartition tp;
  private final ObjectStore store;
  private final Fence fence;
  private final String directory;
  private final ByteBufAllocator alloc;
  private final LogConfig config;
  private final long nowMs;
  private long tornBytes;
  private long scannedBytes;
  private long lastProgress = System.nanoTime();

  LogRecovery(
      TopicPartition tp,
      ObjectStore store,
      Fence fence,
      ByteBufAllocator alloc,
      LogConfig config,
      long nowMs) {
    this.tp = tp;
    this.store = store;
    this.fence = fence;
    this.directory = fence.directory();
    this.alloc = alloc;
    this.config = config;
    this.nowMs = nowMs;
  }

  RecoveredLog recover(PartitionMeta meta) throws IOException {
    long started = System.nanoTime();
    SegmentListing listing = SegmentListing.of(store, directory);
    for (SegmentListing.Entry e : listing.leftovers) {
      log.info("{}: deleting {}, left over from interrupted work", tp, e.logName());
      deleteEntry(e);
    }
    ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();
    ProducerStateTable producers = new ProducerStateTable();
    Segment active = null;
    int n = listing.live.size();
    for (int i = 0; i < n; i++) {
      SegmentListing.Entry e = listing.live.get(i);
      long nextBase = i + 1 < n ? listing.live.get(i + 1).baseOffset : Long.MAX_VALUE;
      SegmentSidecar.Contents sc = e.sidecar;
      if (sc != null && sc.lastOffset() >= nextBase) {
        e.sidecarProblem = "it reaches past the next segment";
        sc = null;
      }
      if (e.hasIndex && sc == null) {
        log.warn("{}: rebuilding the sidecar of {}: {}", tp, e.logName(), e.sidecarProblem);
      }
      boolean last = i == n - 1;
      Segment segment;
      if (sc != null && (sc.sealed() || !last || e.generation > 0)) {
        segment = Segment.restoredFrom(directory, sc);
        segment.seal();
        producers = sc.producers();
      } else {
        if (sc != null) {
          segment = Segment.restoredFrom(directory, sc);
          producers = sc.producers();
        } else {
          segment = new Segment(directory, e.baseOffset, e.generation, nowMs);
        }
        long torn = scan(segment, e, producers, last ? Long.MAX_VALUE : nextBase);
        if (segment.isEmpty()) {
          log.warn("{}: {} holds no valid batch; deleting it", tp, e.logName());
          deleteEntry(e);
          continue;
        }
        if (!last || torn > 0 || e.generation > 0) {
          tornBytes += torn;
          writeSidecar(segment, producers);
          segment.seal();
        } else {
          active = segment;
        }
      }
      segments.put(segment.baseOffset(), segment);
    }
    long nextOffset =
        Math.max(
            segments.isEmpty() ? 0 : segments.lastEntry().getValue().nextOffset(),
            meta.logStartOffset());
    for (Segment s : segments.values()) {
      if (s.nextOffset() <= meta.logStartOffset()) {
        log.info("{}: deleting {}, below the log start offset", tp, s.logPath());
        segments.remove(s.baseOffset());
        store.delete(s.logPath());
        store.delete(s.indexPath());
        if (s == active) {
          active = null;
        }
      }
    }
    producers.removeBefore(meta.logStartOffset());
    log.info(
        "{}: recovered {} segments, offsets {} to {}, {} producers, {} torn bytes skipped, {}"
            + " bytes scanned, in {} ms",
        tp,
        segments.size(),
        meta.logStartOffset(),
        nextOffset - 1,
        producers.size(),
        tornBytes,
        scannedBytes,
        (System.nanoTime() - started) / 1_000_000);
    return new RecoveredLog(segments, active, producers, nextOffset);
  }

  /**
   * Scans {@code segment}'s object from its valid length on, adding each valid batch to the segment
   * and the producer state. Returns the bytes after the valid data.
   */
  private long scan(
      Segment segment, SegmentListing.Entry e, ProducerStateTable producers, long offsetLimit)
      throws IOException {
    long from = segment.validLength();
    try (SegmentScanner scanner =
        new SegmentScanner(
            store,
            segment.logPath(),
            from,
            e.logSize,
            segment.nextOffset(),
            offsetLimit,
            SegmentScanner.DEFAULT_BLOCK_SIZE,
            true)) {
      while (scanner.next()) {
        RecordBatch batch = scanner.batch();
        segment.onBatch(batch, scanner.position(), config.indexIntervalBytes());
        producers.apply(batch);
        progress(scanner.validEnd() - from, e);
      }
      segment.setValidLength(scanner.validEnd());
      scannedBytes += scanner.validEnd() - from;
      long torn = e.logSize - scanner.validEnd();
      if (torn > 0) {
        log.warn(
            "{}: {} ends in {} bytes that are not whole valid batches ({}); they will never be"
                + " read",
            tp,
            e.logName(),
            torn,
            scanner.problem());
      }
      return torn;
    }
  }

  private void progress(long scanned, SegmentListing.Entry e) {
    long now = System.nanoTime();
    if (now - lastProgress >= PROGRESS_EVERY_NANOS) {
      lastProgress = now;
      log.info("{}: recovering, {} of {} bytes of {} scanned", tp, scanned, e.logSize, e.logName());
    }
  }

  private void writeSidecar(Segment segment, ProducerStateTable producers) throws IOException {
    ByteBuf sidecar = SegmentSidecar.encode(segment, true, producers, alloc);
    try {
      store.put(segment.indexPath(), sidecar, fence);
    } finally {
      sidecar.release();
    }
  }

  private void deleteEntry(SegmentListing.Entry e) throws IOException {
    store.delete(directory + "/" + e.logName());
    store.delete(directory + "/" + e.indexName());
  }
}
