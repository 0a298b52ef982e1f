package io.kelp.engine.log;

import io.kelp.engine.segment.Segment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moving a log's start offset and deleting what falls below it: DeleteRecords, and retention by
 * time (retention.ms against each segment's largest timestamp) and by size (retention.bytes), which
 * remove whole sealed segments, oldest first. The new start offset is persisted in partition.meta
 * before any object is deleted, so a crash in between only leaves objects that the next recovery
 * deletes.
 */
final class LogRetention {
  private static final Logger log = LoggerFactory.getLogger(LogRetention.class);

  private LogRetention() {}

  static DeleteRecordsResult deleteRecordsBefore(SegmentLog l, long offset) {
    long hw = l.highWatermark();
    long target = offset < 0 ? hw : offset;
    if (target > hw) {
      return new DeleteRecordsResult(
          false,
          l.logStartOffset(),
          l + ": offset " + offset + " is above the high watermark " + hw);
    }
    l.maintenance.lock();
    try {
      moveLogStart(l, target, "DeleteRecords");
      return new DeleteRecordsResult(true, l.logStartOffset(), null);
    } catch (IOException e) {
      log.warn("{}: DeleteRecords to {} failed: {}", l, target, e.toString());
      return new DeleteRecordsResult(false, l.logStartOffset(), e.getMessage());
    } finally {
      l.maintenance.unlock();
    }
  }

  /**
   * One retention pass at {@code nowMs}: deletes expired or excess sealed segments, rolls an active
   * segment that has entirely expired so the next pass can delete it, and expires idle producers.
   */
  static void run(SegmentLog l, long nowMs, long producerExpirationMs) throws IOException {
    l.maintenance.lock();
    try {
      LogConfig cfg = l.config();
      long start = l.logStartOffset();
      if (cfg.delete()) {
        start = Math.max(start, retainedStart(l, cfg, nowMs));
      }
      moveLogStart(l, start, "retention");
      l.producers.expire(nowMs, producerExpirationMs);
      l.durableProducers().expire(nowMs, producerExpirationMs);
    } finally {
      l.maintenance.unlock();
    }
  }

  /** The log start offset retention.ms and retention.bytes allow. */
  private static long retainedStart(SegmentLog l, LogConfig cfg, long nowMs) {
    long start = l.logStartOffset();
    List<Segment> sealed = new ArrayList<>();
    Segment active = null;
    for (Segment s : l.segments.values()) {
      if (s.nextOffset() <= start) {
        continue;
      }
      if (s.isSealed()) {
        sealed.add(s);
      } else {
        active = s;
      }
    }
    int deleted = 0;
    if (cfg.retentionMs() >= 0) {
      long horizon = nowMs - cfg.retentionMs();
      while (deleted < sealed.size() && sealed.get(deleted).maxTimestamp() < horizon) {
        start = sealed.get(deleted).nextOffset();
        deleted++;
      }
      if (deleted == sealed.size()
          && active != null
          && !active.isEmpty()
          && active.maxTimestamp() < horizon) {
        // Kafka rolls an active segment whose records have all expired, so it can go too.
        l.requestRoll();
      }
    }
    if (cfg.retentionBytes() >= 0) {
      long size = 0;
      for (Segment s : l.segments.values()) {
        size += s.validLength();
      }
      for (int i = 0; i < deleted; i++) {
        size -= sealed.get(i).validLength();
      }
      while (deleted < sealed.size()
          && size - sealed.get(deleted).validLength() >= cfg.retentionBytes()) {
        size -= sealed.get(deleted).validLength();
        start = sealed.get(deleted).nextOffset();
        deleted++;
      }
    }
    return start;
  }

  /**
   * Persists {@code newStart} as the log start offset if it is higher, then forgets producers and
   * cached batches below it and deletes the sealed segments entirely below it (an active one is
   * rolled first).
   */
  static void moveLogStart(SegmentLog l, long newStart, String why) throws IOException {
    long old = l.logStartOffset();
    if (newStart > old) {
      l.updateMeta(m -> m.withLogStartOffset(Math.max(m.logStartOffset(), newStart)));
      l.producers.removeBefore(newStart);
      l.durableProducers().removeBefore(newStart);
      l.cache.invalidate(Long.MIN_VALUE, newStart);
      log.info("{}: log start offset moved from {} to {} by {}", l, old, newStart, why);
    }
    long start = l.logStartOffset();
    for (Segment s : l.segments.values()) {
      if (s.nextOffset() > start) {
        break;
      }
      if (!s.isSealed()) {
        l.requestRoll();
        break;
      }
      l.checkOwnership();
      l.segments.remove(s.baseOffset(), s);
      l.ctx.store().delete(s.logPath());
      l.ctx.store().delete(s.indexPath());
      log.info("{}: deleted {} ({})", l, s, why);
    }
  }
}
