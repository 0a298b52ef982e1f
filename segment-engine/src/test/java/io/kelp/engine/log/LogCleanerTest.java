package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.record.Compression;
import io.kelp.codec.record.RecordBatch;
import io.kelp.engine.segment.SegmentFile;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Compaction: latest value per key, tombstones, bounded size, crash safety. */
class LogCleanerTest extends LogTestSupport {
  private static final long DAY = 86_400_000L;

  private static LogConfig compacted(long segmentBytes) {
    LogConfig c = LogConfig.defaults();
    return new LogConfig(
        segmentBytes,
        c.segmentMs(),
        c.retentionMs(),
        c.retentionBytes(),
        false,
        true,
        DAY,
        0,
        0.5,
        false,
        512);
  }

  private int clean(PartitionLog log, long now) throws Exception {
    return new LogCleaner(engineConfig).clean((SegmentLog) log, now, true);
  }

  /** Seals the active segment so everything written so far is cleanable. */
  private void roll(PartitionLog log) throws Exception {
    ((SegmentLog) log).requestRoll();
    long deadline = System.currentTimeMillis() + 10_000;
    while (((SegmentLog) log).segments.values().stream().anyMatch(s -> !s.isSealed())) {
      assertTrue(System.currentTimeMillis() < deadline, "no roll");
      Thread.sleep(5);
    }
  }

  private static Map<String, Batches.Rec> latest(List<Batches.Rec> recs) {
    Map<String, Batches.Rec> m = new HashMap<>();
    for (Batches.Rec r : recs) {
      m.put(r.key(), r);
    }
    return m;
  }

  @Test
  void onlyTheLatestRecordPerKeyStaysAndOffsetsAreKept() throws Exception {
    long now = System.currentTimeMillis();
    LogConfig config = compacted(2000);
    PartitionLog log = open(config);
    for (int round = 0; round < 20; round++) {
      for (int k = 0; k < 10; k++) {
        Compression c = k % 2 == 0 ? Compression.NONE : Compression.LZ4;
        appendDurably(log, Batches.keyed(now, c, "k" + k, "v" + round, "x" + k, "w" + round));
      }
    }
    List<Batches.Rec> before = readAll(log);
    roll(log);
    assertTrue(clean(log, now) > 0);
    List<Batches.Rec> after = readAll(log);
    assertEquals(20, after.size(), "one record per key: " + after);
    Map<String, Batches.Rec> expected = latest(before);
    assertEquals(expected, latest(after));
    for (Batches.Rec r : after) {
      assertEquals("v19".equals(r.value()) || "w19".equals(r.value()), true, r.toString());
    }
    assertTrue(files().stream().anyMatch(f -> f.contains(".c")), files().toString());
    assertEquals(400, log.logEndOffset());
    assertEquals(
        400, appendDurably(log, Batches.keyed(now, Compression.NONE, "k0", "new")).baseOffset());

    log = restart(config);
    List<Batches.Rec> reopened = readAll(log);
    assertEquals(21, reopened.size());
    assertEquals("new", latest(reopened).get("k0").value());
  }

  @Test
  void compressedBatchesKeepTheirCodecAndBaseOffset() throws Exception {
    long now = System.currentTimeMillis();
    PartitionLog log = open(compacted(1 << 20));
    appendDurably(
        log, Batches.keyed(now, Compression.ZSTD, "a", "1", "b", "1", "c", "1", "d", "1"));
    appendDurably(log, Batches.keyed(now, Compression.NONE, "b", "2", "d", "2"));
    roll(log);
    clean(log, now);
    ReadResult r = log.read(0, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    try {
      List<RecordBatch> batches = Batches.batchesOf(r.records());
      assertEquals(0, batches.get(0).baseOffset());
      assertEquals(Compression.ZSTD, batches.get(0).compression());
      assertEquals(2, batches.get(0).recordCount());
      List<Batches.Rec> recs = Batches.records(r.records());
      assertEquals(
          List.of("a@0", "c@2", "b@4", "d@5"),
          recs.stream().map(x -> x.key() + "@" + x.offset()).toList());
    } finally {
      r.records().release();
    }
  }

  @Test
  void tombstonesStayForDeleteRetentionMsThenGo() throws Exception {
    long now = System.currentTimeMillis();
    PartitionLog log = open(compacted(1 << 20));
    appendDurably(log, Batches.keyed(now, Compression.NONE, "gone", "1", "kept", "1"));
    appendDurably(log, Batches.keyed(now, Compression.NONE, "gone", null));
    roll(log);
    clean(log, now);
    List<Batches.Rec> recs = readAll(log);
    assertEquals(List.of("kept", "gone"), recs.stream().map(Batches.Rec::key).toList());
    assertEquals(null, recs.get(1).value());
    clean(log, now + DAY - 1);
    assertEquals(2, readAll(log).size(), "tombstone removed before delete.retention.ms");
    clean(log, now + DAY + 1);
    recs = readAll(log);
    assertEquals(List.of("kept"), recs.stream().map(Batches.Rec::key).toList());
  }

  @Test
  void aLogRewritingTheSameKeysStaysBounded() throws Exception {
    long now = System.currentTimeMillis();
    int keys = 50;
    int recordSize = Batches.keyed(now, Compression.NONE, "k00", "x".repeat(200)).readableBytes();
    LogConfig config = compacted(8 * 1024);
    PartitionLog log = open(config);
    long peak = 0;
    for (int round = 0; round < 40; round++) {
      for (int k = 0; k < keys; k++) {
        appendDurably(
            log, Batches.keyed(now, Compression.NONE, String.format("k%02d", k), "x".repeat(200)));
      }
      roll(log);
      clean(log, now);
      peak = Math.max(peak, log.sizeInBytes());
    }
    long written = 40L * keys * recordSize;
    assertTrue(
        peak < 3L * keys * recordSize,
        "peak size "
            + peak
            + " for "
            + keys
            + " keys of "
            + recordSize
            + " bytes, "
            + written
            + " written");
    assertEquals(keys, readAll(log).size());
    assertTrue(files().size() < 20, files().toString());
  }

  @Test
  void theLastBatchOfAnIdempotentProducerIsKeptWhole() throws Exception {
    long now = System.currentTimeMillis();
    PartitionLog log = open(compacted(1 << 20));
    appendDurably(log, Batches.idempotent(4, (short) 0, 0, 1));
    appendDurably(log, Batches.idempotent(4, (short) 0, 1, 1));
    appendDurably(log, Batches.keyed(now, Compression.NONE, "a", "1"));
    appendDurably(log, Batches.keyed(now, Compression.NONE, "a", "2"));
    roll(log);
    clean(log, now);
    List<Long> offsets = readAll(log).stream().map(Batches.Rec::offset).toList();
    assertEquals(List.of(0L, 1L, 3L), offsets);
    log = restart(compacted(1 << 20));
    assertEquals(
        AppendResult.Status.DUPLICATE,
        append(log, Batches.idempotent(4, (short) 0, 1, 1)).status());
    assertEquals(
        AppendResult.Status.OK, append(log, Batches.idempotent(4, (short) 0, 2, 1)).status());
  }

  @Test
  void recoveryFinishesOrUndoesAnInterruptedClean() throws Exception {
    long now = System.currentTimeMillis();
    LogConfig config = compacted(1 << 20);
    PartitionLog log = open(config);
    for (int i = 0; i < 5; i++) {
      appendDurably(log, Batches.keyed(now, Compression.NONE, "k", "v" + i));
    }
    roll(log);
    engine.close();
    store.close();
    engine = null;
    // A clean that died before its sidecar: its data object is a leftover.
    Files.write(file(SegmentFile.logName(0, 1)), new byte[] {1, 2, 3});
    log = open(config);
    assertFalse(files().contains(SegmentFile.logName(0, 1)), files().toString());
    assertEquals(5, readAll(log).size());

    // A clean that died after its sidecar but before deleting the old segment: the old goes.
    clean(log, now);
    engine.close();
    store.close();
    engine = null;
    String cleaned = files().stream().filter(f -> f.endsWith(".log")).findFirst().orElseThrow();
    assertTrue(cleaned.contains(".c"), cleaned);
    Files.write(file(SegmentFile.logName(0, 0)), new byte[] {9, 9, 9});
    log = open(config);
    assertFalse(files().contains(SegmentFile.logName(0, 0)), files().toString());
    assertEquals(List.of("v4"), readAll(log).stream().map(Batches.Rec::value).toList());
    assertEquals(5, log.logEndOffset());
  }

  @Test
  void theEngineCleansOnItsOwnWhenTheDirtyRatioIsReached() throws Exception {
    engineConfig =
        new EngineConfig(0, 4 << 20, 64 << 20, 16 << 20, 2, 60_000, DAY, 100, 1 << 20, 0, 0);
    long now = System.currentTimeMillis();
    PartitionLog log = open(compacted(1000));
    for (int i = 0; i < 30; i++) {
      appendDurably(log, Batches.keyed(now, Compression.NONE, "same", "v" + i));
    }
    long deadline = System.currentTimeMillis() + 10_000;
    while (readAll(log).size() > 10) {
      assertTrue(System.currentTimeMillis() < deadline, "the cleaner never ran");
      Thread.sleep(20);
    }
    AppendResult r = append(log, Batches.keyed(now, Compression.NONE, "same", "last"));
    r.durable().get(10, TimeUnit.SECONDS);
    assertEquals("last", latest(readAll(log)).get("same").value());
  }

  @Test
  void theOfflineReaderSeesTheCompactedLog() throws Exception {
    long now = System.currentTimeMillis();
    PartitionLog log = open(compacted(1500));
    for (int i = 0; i < 30; i++) {
      appendDurably(log, Batches.keyed(now, Compression.NONE, "k" + (i % 3), "v" + i));
    }
    roll(log);
    clean(log, now);
    List<Long> live = readAll(log).stream().map(Batches.Rec::offset).toList();
    List<Long> offline = new java.util.ArrayList<>();
    LogReader.readBatches(
        store,
        DIR,
        0,
        batch -> {
          offline.addAll(Batches.records(batch).stream().map(Batches.Rec::offset).toList());
          return true;
        });
    assertEquals(List.of(27L, 28L, 29L), live);
    assertEquals(live, offline);
  }
}
