package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.segment.SegmentFile;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retention by time and size, and DeleteRecords. */
class LogRetentionTest extends LogTestSupport {
  private static final long HOUR = 3_600_000L;

  private static LogConfig retention(long segmentBytes, long retentionMs, long retentionBytes) {
    LogConfig c = LogConfig.defaults();
    return new LogConfig(
        segmentBytes,
        c.segmentMs(),
        retentionMs,
        retentionBytes,
        true,
        false,
        c.deleteRetentionMs(),
        c.minCompactionLagMs(),
        c.minCleanableDirtyRatio(),
        false,
        c.indexIntervalBytes());
  }

  private static void retain(PartitionLog log, long now) throws Exception {
    LogRetention.run((SegmentLog) log, now, 7 * 24 * HOUR);
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  private static void waitFor(Condition condition) throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    while (!condition.holds()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(10);
    }
  }

  private long segments() throws Exception {
    return files().stream().filter(f -> f.endsWith(".log")).count();
  }

  @Test
  void segmentsOlderThanRetentionMsAreDeleted() throws Exception {
    long now = System.currentTimeMillis();
    LogConfig config = retention(2500, HOUR, -1);
    PartitionLog log = open(config);
    for (int i = 0; i < 6; i++) {
      appendDurably(log, Batches.sized(1000, now - 3 * HOUR));
    }
    for (int i = 0; i < 3; i++) {
      appendDurably(log, Batches.sized(1000, now));
    }
    retain(log, now);
    assertEquals(6, log.logStartOffset());
    assertEquals(
        ReadResult.Status.OFFSET_OUT_OF_RANGE,
        log.read(2, 1000, Isolation.READ_UNCOMMITTED, true).status());
    assertEquals(3, readAll(log).size());
    assertFalse(files().contains(SegmentFile.logName(0, 0)), files().toString());
    log = restart(config);
    assertEquals(6, log.logStartOffset());
    assertEquals(3, readAll(log).size());
  }

  @Test
  void anEntirelyExpiredActiveSegmentIsRolledAndDeletedAndOffsetsCarryOn() throws Exception {
    long now = System.currentTimeMillis();
    LogConfig config = retention(1 << 20, HOUR, -1);
    PartitionLog log = open(config);
    for (int i = 0; i < 4; i++) {
      appendDurably(log, Batches.sized(500, now - 2 * HOUR));
    }
    retain(log, now);
    waitFor(() -> files().contains(SegmentFile.indexName(0, 0)));
    // The sidecar is stored just before the segment counts as sealed in memory; retention deletes
    // it at the first pass after that.
    PartitionLog rolled = log;
    waitFor(
        () -> {
          retain(rolled, now);
          return rolled.logStartOffset() == 4;
        });
    assertEquals(4, log.logStartOffset());
    assertEquals(0, segments());
    assertEquals(0, log.sizeInBytes());
    log = restart(config);
    assertEquals(4, log.logStartOffset());
    assertEquals(4, log.logEndOffset());
    assertEquals(4, appendDurably(log, Batches.sized(500, now)).baseOffset());
    assertEquals(1, readAll(log).size());
  }

  @Test
  void theOldestSegmentsGoWhileTheLogExceedsRetentionBytes() throws Exception {
    long now = System.currentTimeMillis();
    int batch = Batches.sized(1000, now).readableBytes();
    LogConfig config = retention(2L * batch, -1, 4L * batch);
    PartitionLog log = open(config);
    for (int i = 0; i < 12; i++) {
      appendDurably(log, Batches.sized(1000, now));
    }
    assertEquals(12L * batch, log.sizeInBytes());
    retain(log, now);
    assertTrue(log.sizeInBytes() >= 4L * batch, "deleted below retention.bytes");
    assertTrue(log.sizeInBytes() < 6L * batch, "kept " + log.sizeInBytes());
    assertEquals(12 - log.sizeInBytes() / batch, log.logStartOffset());
    assertEquals(log.sizeInBytes() / batch, readAll(log).size());
  }

  @Test
  void nothingIsDeletedWhenCleanupPolicyLacksDelete() throws Exception {
    long now = System.currentTimeMillis();
    LogConfig c = retention(2500, HOUR, -1);
    LogConfig compactOnly =
        new LogConfig(
            c.segmentBytes(),
            c.segmentMs(),
            c.retentionMs(),
            c.retentionBytes(),
            false,
            true,
            c.deleteRetentionMs(),
            c.minCompactionLagMs(),
            c.minCleanableDirtyRatio(),
            false,
            c.indexIntervalBytes());
    PartitionLog log = open(compactOnly);
    for (int i = 0; i < 6; i++) {
      appendDurably(log, Batches.sized(1000, now - 3 * HOUR));
    }
    retain(log, now);
    assertEquals(0, log.logStartOffset());
    assertEquals(6, readAll(log).size());
  }

  @Test
  void deleteRecordsMovesTheLogStartAndDeletesSegmentsBelowIt() throws Exception {
    long now = System.currentTimeMillis();
    LogConfig config = retention(2500, -1, -1);
    PartitionLog log = open(config);
    for (int i = 0; i < 9; i++) {
      appendDurably(log, Batches.batch("b" + i, 2, now));
    }
    for (int i = 0; i < 6; i++) {
      appendDurably(log, Batches.sized(1000, now));
    }
    long segmentsBefore = segments();
    DeleteRecordsResult r = log.deleteRecordsBefore(19);
    assertTrue(r.ok(), r.message());
    assertEquals(19, r.logStartOffset());
    assertEquals(19, log.logStartOffset());
    assertTrue(segments() < segmentsBefore);
    assertEquals(
        ReadResult.Status.OFFSET_OUT_OF_RANGE,
        log.read(18, 1000, Isolation.READ_UNCOMMITTED, true).status());
    ReadResult at = log.read(19, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    assertEquals(ReadResult.Status.OK, at.status());
    assertEquals(19, at.logStartOffset());
    assertTrue(Batches.batchesOf(at.records()).get(0).baseOffset() <= 19);
    at.records().release();

    assertFalse(log.deleteRecordsBefore(100).ok(), "past the high watermark");
    assertTrue(log.deleteRecordsBefore(5).ok(), "below the log start is a no-op");
    assertEquals(19, log.logStartOffset());

    log = restart(config);
    assertEquals(19, log.logStartOffset());
    List<Batches.Rec> rest = readAll(log);
    assertEquals(19, rest.get(0).offset());
    assertEquals(24 - 19, rest.size());

    assertTrue(log.deleteRecordsBefore(-1).ok(), "-1 means the high watermark");
    assertEquals(24, log.logStartOffset());
    assertEquals(0, readAll(log).size());
    assertEquals(24, appendDurably(log, Batches.batch("z", 1, now)).baseOffset());
  }
}
