package io.kelp.engine.log;

import io.kelp.codec.record.InvalidRecordException;
import io.kelp.codec.record.Record;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordIterator;
import io.kelp.engine.producer.ProducerStateTable;
import io.kelp.engine.segment.Segment;
import io.kelp.engine.segment.SegmentScanner;
import io.kelp.engine.segment.SegmentSidecar;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log compaction for cleanup.policy=compact, one log at a time on the maintenance thread:
 *
 * <ol>
 *   <li>The cleanable part is the sealed segments from the log start up to the first one younger
 *       than min.compaction.lag.ms; it is cleaned when the share of never-cleaned (generation 0)
 *       bytes in it reaches min.cleanable.dirty.ratio, or a tombstone's delete horizon is due.
 *   <li>A {@link KeyOffsetMap} of the latest offset per key is built over the never-cleaned
 *       segments; if it fills, cleaning stops at the segment where it filled.
 *   <li>Every cleanable segment up to there is rewritten through a {@link BatchFilter}, adjacent
 *       segments grouped while their sizes add up to at most segment.bytes, each group into a new
 *       object {@code <base>.c<gen>.log} (appended in chunks, since it is new), then its sidecar,
 *       which is the commit point. The new segment takes the group's place in the log, and only
 *       then are the old objects deleted (the one at the group's base last), so recovery can tell a
 *       finished clean from an interrupted one (see {@link SegmentListing}).
 * </ol>
 *
 * Records keep their offsets; the log only gets gaps. A workload rewriting the same keys keeps the
 * log at about one record per key plus what is not yet cleanable.
 */
final class LogCleaner {
  private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);
  private static final int WRITE_CHUNK_BYTES = 1 << 20;

  private final long mapBytes;
  private KeyOffsetMap map;

  LogCleaner(EngineConfig config) {
    this.mapBytes = config.cleanerDedupeBufferBytes();
  }

  /**
   * Cleans {@code l} if enough of it is dirty, or whenever there is something cleanable if {@code
   * force}. Returns the number of segments rewritten.
   */
  synchronized int clean(SegmentLog l, long nowMs, boolean force) throws IOException {
    l.maintenance.lock();
    try {
      return cleanLocked(l, nowMs, force);
    } finally {
      l.maintenance.unlock();
    }
  }

  private int cleanLocked(SegmentLog l, long nowMs, boolean force) throws IOException {
    LogConfig cfg = l.config();
    if (!cfg.compact() || l.state() != SegmentLog.State.OPEN) {
      return 0;
    }
    List<Segment> cleanable = new ArrayList<>();
    for (Segment s : l.segments.values()) {
      if (!s.isSealed()) {
        break;
      }
      if (s.nextOffset() <= l.logStartOffset()) {
        continue;
      }
      if (cfg.minCompactionLagMs() > 0 && s.maxTimestamp() > nowMs - cfg.minCompactionLagMs()) {
        break;
      }
      cleanable.add(s);
    }
    long total = 0;
    long dirty = 0;
    int firstDirty = -1;
    for (int i = 0; i < cleanable.size(); i++) {
      Segment s = cleanable.get(i);
      total += s.validLength();
      if (s.generation() == 0) {
        dirty += s.validLength();
        firstDirty = firstDirty < 0 ? i : firstDirty;
      }
    }
    boolean horizonDue = nowMs >= l.tombstoneHorizonMs;
    boolean ratioReached = dirty > 0 && dirty >= cfg.minCleanableDirtyRatio() * total;
    if (cleanable.isEmpty() || !(force || horizonDue || ratioReached)) {
      return 0;
    }
    if (map == null) {
      map = new KeyOffsetMap(mapBytes);
    }
    map.clear();
    int upTo = cleanable.size();
    if (firstDirty >= 0) {
      upTo = buildMap(l, cleanable, firstDirty);
    }
    List<Segment> toClean = cleanable.subList(0, upTo);
    BatchFilter filter =
        new BatchFilter(map, l.producers, l.ctx.alloc(), nowMs, cfg.deleteRetentionMs());
    long before = 0;
    long after = 0;
    int written = 0;
    long limit = Math.min(cfg.segmentBytes(), SegmentWriter.MAX_SEGMENT_BYTES);
    for (int i = 0; i < toClean.size(); ) {
      int j = i + 1;
      long size = toClean.get(i).validLength();
      while (j < toClean.size()
          && size + toClean.get(j).validLength() <= limit
          && toClean.get(j).lastOffset() - toClean.get(i).baseOffset() <= Integer.MAX_VALUE) {
        size += toClean.get(j).validLength();
        j++;
      }
      List<Segment> group = new ArrayList<>(toClean.subList(i, j));
      Segment cleaned = cleanGroup(l, group, filter);
      before += size;
      after += cleaned.validLength();
      written++;
      i = j;
    }
    l.tombstoneHorizonMs = filter.earliestHorizonMs();
    log.info(
        "{}: compacted {} segments into {}, {} bytes to {}",
        l,
        toClean.size(),
        written,
        before,
        after);
    return written;
  }

  /**
   * Maps keys to latest offsets over the segments from {@code firstDirty}; returns how many of
   * {@code cleanable} to rewrite (up to the segment where the map filled).
   */
  private int buildMap(SegmentLog l, List<Segment> cleanable, int firstDirty) throws IOException {
    for (int i = firstDirty; i < cleanable.size(); i++) {
      Segment s = cleanable.get(i);
      try (SegmentScanner scanner = scanner(l.ctx.store(), s)) {
        while (scanner.next()) {
          RecordBatch batch = scanner.batch();
          if (batch.isControl()) {
            continue;
          }
          if (!mapBatch(batch)) {
            log.info(
                "{}: the cleaner's key map is full at offset {}; cleaning up to there",
                l,
                batch.baseOffset());
            return i + 1;
          }
        }
      }
    }
    return cleanable.size();
  }

  private boolean mapBatch(RecordBatch batch) {
    try (RecordIterator records = batch.records(TimeLookups.MAX_UNCOMPRESSED_BYTES)) {
      while (records.hasNext()) {
        Record r = records.next();
        if (r.key() != null && !map.put(r.key(), r.offset())) {
          return false;
        }
      }
    } catch (InvalidRecordException e) {
      // Unreadable records supersede nothing.
    }
    return true;
  }

  private static SegmentScanner scanner(ObjectStore store, Segment s) {
    return new SegmentScanner(
        store,
        s.logPath(),
        0,
        s.validLength(),
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        SegmentScanner.DEFAULT_BLOCK_SIZE,
        false);
  }

  /** Rewrites {@code group} into one new segment and swaps it in. */
  private Segment cleanGroup(SegmentLog l, List<Segment> group, BatchFilter filter)
      throws IOException {
    ObjectStore store = l.ctx.store();
    Segment first = group.get(0);
    Segment last = group.get(group.size() - 1);
    Segment out =
        new Segment(
            l.directory(), first.baseOffset(), l.nextCleanerGeneration(), first.createdMs());
    try {
      write(l, group, filter, out);
      out.coverUpTo(last.nextOffset());
      ByteBuf sidecar = SegmentSidecar.encode(out, true, producersAtEnd(l, last), l.ctx.alloc());
      try {
        store.put(out.indexPath(), sidecar, l.fence);
      } finally {
        sidecar.release();
      }
      out.seal();
    } catch (IOException | RuntimeException e) {
      deleteQuietly(store, out);
      throw e;
    }
    l.segments.put(out.baseOffset(), out);
    for (Segment s : group.subList(1, group.size())) {
      l.segments.remove(s.baseOffset(), s);
    }
    l.cache.invalidate(first.baseOffset(), out.nextOffset());
    l.checkOwnership();
    for (Segment s : group.subList(1, group.size())) {
      store.delete(s.logPath());
      store.delete(s.indexPath());
    }
    store.delete(first.logPath());
    store.delete(first.indexPath());
    return out;
  }

  private void write(SegmentLog l, List<Segment> group, BatchFilter filter, Segment out)
      throws IOException {
    ObjectStore store = l.ctx.store();
    int indexInterval = l.config().indexIntervalBytes();
    ByteBuf chunk = l.ctx.alloc().directBuffer(WRITE_CHUNK_BYTES);
    long written = 0;
    boolean created = false;
    try {
      for (Segment s : group) {
        try (SegmentScanner scanner = scanner(store, s)) {
          while (scanner.next()) {
            RecordBatch batch = scanner.batch();
            filter.filter(batch);
            int at = chunk.writerIndex();
            switch (filter.verdict()) {
              case DROP -> {
                continue;
              }
              case KEEP -> chunk.writeBytes(batch.buffer(), batch.offset(), batch.sizeInBytes());
              case REBUILT -> {
                ByteBuf rebuilt = filter.takeRebuilt();
                try {
                  chunk.writeBytes(rebuilt);
                } finally {
                  rebuilt.release();
                }
              }
            }
            out.onBatch(RecordBatch.at(chunk, at), written + at, indexInterval);
            if (chunk.readableBytes() >= WRITE_CHUNK_BYTES) {
              store.append(out.logPath(), chunk, l.fence);
              created = true;
              written += chunk.readableBytes();
              chunk.clear();
            }
          }
        }
      }
      if (chunk.isReadable() || !created) {
        if (created) {
          store.append(out.logPath(), chunk, l.fence);
        } else {
          store.put(out.logPath(), chunk, l.fence);
        }
        written += chunk.readableBytes();
      }
      out.setValidLength(written);
    } finally {
      chunk.release();
    }
  }

  /** The producer snapshot as of the end of {@code last}, from its sidecar. */
  private static ProducerStateTable producersAtEnd(SegmentLog l, Segment last) {
    ObjectStore store = l.ctx.store();
    try {
      Optional<ObjectInfo> info = store.stat(last.indexPath());
      if (info.isPresent()) {
        ByteBuf data = store.read(last.indexPath(), 0, (int) info.get().size());
        try {
          return SegmentSidecar.decode(data).producers();
        } finally {
          data.release();
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      log.warn("{}: no producer snapshot in {}: {}", l, last.indexPath(), e.toString());
    }
    return new ProducerStateTable();
  }

  private static void deleteQuietly(ObjectStore store, Segment out) {
    try {
      store.delete(out.logPath());
      store.delete(out.indexPath());
    } catch (IOException e) {
      log.warn("could not remove the unfinished {}: {}", out.logPath(), e.toString());
    }
  }
}
