package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.TimestampType;
import io.kelp.engine.segment.SegmentFile;
import io.kelp.engine.segment.SegmentSidecar;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SegmentLogTest extends LogTestSupport {

  @Test
  void offsetsAreDenseAcrossBatchesAndRestarts() throws Exception {
    PartitionLog log = open();
    AppendResult a = appendDurably(log, Batches.batch("a", 5, 1000));
    AppendResult b = appendDurably(log, Batches.batch("b", 1, 2000));
    AppendResult c = appendDurably(log, Batches.batch("c", 3, 3000));
    assertEquals(
        List.of(0L, 4L, 5L, 5L, 6L, 8L),
        List.of(
            a.baseOffset(),
            a.lastOffset(),
            b.baseOffset(),
            b.lastOffset(),
            c.baseOffset(),
            c.lastOffset()));
    assertEquals(9, log.logEndOffset());
    assertEquals(9, log.highWatermark());

    log = restart(LogConfig.defaults());
    assertEquals(9, log.logEndOffset());
    assertEquals(9, log.highWatermark());
    AppendResult d = appendDurably(log, Batches.batch("d", 2, 4000));
    assertEquals(9, d.baseOffset());

    List<Batches.Rec> all = readAll(log);
    assertEquals(11, all.size());
    for (int i = 0; i < all.size(); i++) {
      assertEquals(i, all.get(i).offset());
    }
    assertEquals("a-0", all.get(0).value());
    assertEquals("b-0", all.get(5).value());
    assertEquals("d-1", all.get(10).value());
  }

  @Test
  void theCallersBufferIsNeitherChangedNorReleased() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("x", 2, 1000));
    ByteBuf batch = Batches.batch("y", 1, 1000);
    byte[] before = new byte[batch.readableBytes()];
    batch.getBytes(0, before);
    appendDurably(log, batch);
    byte[] after = new byte[batch.readableBytes()];
    batch.getBytes(0, after);
    assertEquals(1, batch.refCnt());
    assertTrue(java.util.Arrays.equals(before, after), "the caller's bytes were rewritten");
  }

  @Test
  void durableCompletesOnlyOnceTheBytesAreInTheFile() throws Exception {
    PartitionLog log = open();
    store.closeGate();
    ByteBuf batch = Batches.batch("a", 3, 1000);
    AppendResult r = append(log, batch);
    assertEquals(AppendResult.Status.OK, r.status());
    Thread.sleep(100);
    assertFalse(r.durable().isDone(), "acknowledged before the store write");
    assertEquals(0, log.highWatermark());
    assertEquals(3, log.logEndOffset());
    ReadResult early = log.read(0, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    assertEquals(ReadResult.Status.OK, early.status());
    assertEquals(0, early.records().readableBytes(), "a read went past the high watermark");
    early.records().release();

    store.openGate();
    r.durable().get(10, TimeUnit.SECONDS);
    assertEquals(3, log.highWatermark());
    String segment = SegmentFile.logName(0, 0);
    assertEquals(batch.readableBytes(), Files.size(file(segment)));
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 256L << 20})
  void aReadInsideABatchReturnsTheWholeBatch(long tailCacheBytes) throws Exception {
    engineConfig = quietConfig(0, 4 << 20, 256 << 20, tailCacheBytes, 4);
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 10, 1000));
    appendDurably(log, Batches.batch("b", 10, 1000));
    ReadResult r = log.read(5, 1 << 20, Isolation.READ_UNCOMMITTED, false);
    try {
      List<RecordBatch> batches = Batches.batchesOf(r.records());
      assertEquals(2, batches.size());
      assertEquals(0, batches.get(0).baseOffset());
      assertEquals(10, batches.get(1).baseOffset());
      assertEquals(20, r.highWatermark());
    } finally {
      r.records().release();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 256L << 20})
  void maxBytesCountsWholeBatchesAndMinOneBatchOverridesIt(long tailCacheBytes) throws Exception {
    engineConfig = quietConfig(0, 4 << 20, 256 << 20, tailCacheBytes, 4);
    PartitionLog log = open();
    int size = Batches.sized(1000, 1).readableBytes();
    for (int i = 0; i < 5; i++) {
      appendDurably(log, Batches.sized(1000, 1000 + i));
    }
    assertBatches(log.read(0, size * 2 + size / 2, Isolation.READ_UNCOMMITTED, false), 0, 2);
    assertBatches(log.read(0, size / 2, Isolation.READ_UNCOMMITTED, false), 0, 0);
    assertBatches(log.read(0, size / 2, Isolation.READ_UNCOMMITTED, true), 0, 1);
    assertBatches(log.read(3, 1 << 20, Isolation.READ_UNCOMMITTED, false), 3, 2);
    assertBatches(log.read(0, 1 << 20, Isolation.READ_COMMITTED, false), 0, 5);
  }

  private static void assertBatches(ReadResult r, long first, int count) {
    try {
      assertEquals(ReadResult.Status.OK, r.status());
      List<RecordBatch> batches = Batches.batchesOf(r.records());
      assertEquals(count, batches.size());
      if (count > 0) {
        assertEquals(first, batches.get(0).baseOffset());
      }
    } finally {
      r.records().release();
    }
  }

  @Test
  void readsStopAtTheHighWatermarkAndRefuseOffsetsOutOfRange() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 2, 1000));
    store.closeGate();
    AppendResult pending = append(log, Batches.batch("b", 2, 1000));
    assertEquals(2, pending.baseOffset());
    assertBatches(log.read(0, 1 << 20, Isolation.READ_UNCOMMITTED, true), 0, 1);
    assertBatches(log.read(2, 1 << 20, Isolation.READ_UNCOMMITTED, true), 0, 0);
    assertBatches(log.read(4, 1 << 20, Isolation.READ_UNCOMMITTED, true), 0, 0);
    ReadResult past = log.read(5, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    assertEquals(ReadResult.Status.OFFSET_OUT_OF_RANGE, past.status());
    assertEquals(0, past.records().readableBytes());
    assertEquals(
        ReadResult.Status.OFFSET_OUT_OF_RANGE,
        log.read(-1, 100, Isolation.READ_UNCOMMITTED, true).status());
    store.openGate();
    pending.durable().get(10, TimeUnit.SECONDS);
    assertBatches(log.read(2, 1 << 20, Isolation.READ_UNCOMMITTED, true), 2, 1);
  }

  @Test
  void segmentsRollPastSegmentBytesWithSidecars() throws Exception {
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 3000);
    PartitionLog log = open(config);
    for (int i = 0; i < 10; i++) {
      appendDurably(log, Batches.sized(1000, 1000 + i));
    }
    List<String> files = files();
    long logs = files.stream().filter(f -> f.endsWith(".log")).count();
    assertTrue(logs >= 4, "expected several segments: " + files);
    String lastLog = files.stream().filter(f -> f.endsWith(".log")).reduce((a, b) -> b).get();
    for (String f : files) {
      if (f.endsWith(".index") && !f.equals(lastLog.replace(".log", ".index"))) {
        ByteBuf data = Unpooled.wrappedBuffer(Files.readAllBytes(file(f)));
        SegmentSidecar.Contents c = SegmentSidecar.decode(data);
        assertTrue(c.sealed());
        assertEquals(Files.size(file(f.replace(".index", ".log"))), c.validLength());
      }
    }
    assertTrue(
        files.stream().filter(f -> f.endsWith(".index")).count() >= logs - 1,
        "a sealed segment without its sidecar: " + files);
    assertEquals(10, readAll(log, 0, 1500).size());
    log = restart(config);
    assertEquals(10, readAll(log, 0, 1500).size());
    assertEquals(10, appendDurably(log, Batches.sized(1000, 2000)).baseOffset());
  }

  @Test
  void segmentsRollAfterTheStoresAppendsPerObject() throws Exception {
    PartitionLog log = open();
    store.boundAppendsPerObject(3);
    for (int i = 0; i < 7; i++) {
      appendDurably(log, Batches.sized(200, 1000 + i));
    }
    // 3 + 3 + 1 appends: each durable append is one store append
    assertEquals(3, files().stream().filter(f -> f.endsWith(".log")).count(), files().toString());
    assertEquals(7, readAll(log).size());
    // A recovered active segment may hold any number of appends: the first write rolls it.
    engine.close();
    store.close();
    startEngine();
    store.boundAppendsPerObject(3);
    log = open();
    appendDurably(log, Batches.sized(200, 2000));
    assertEquals(4, files().stream().filter(f -> f.endsWith(".log")).count(), files().toString());
    assertEquals(8, readAll(log).size());
  }

  @Test
  void logAppendTimeStampsTheBrokerTime() throws Exception {
    LogConfig c = LogConfig.defaults();
    LogConfig lat =
        new LogConfig(
            c.segmentBytes(),
            c.segmentMs(),
            c.retentionMs(),
            c.retentionBytes(),
            c.delete(),
            c.compact(),
            c.deleteRetentionMs(),
            c.minCompactionLagMs(),
            c.minCleanableDirtyRatio(),
            true,
            c.indexIntervalBytes());
    PartitionLog log = open(lat);
    AppendResult r = log.append(Batches.batch("t", 3, 1000), new AppendOptions(123_456_789L));
    r.durable().get(10, TimeUnit.SECONDS);
    assertEquals(123_456_789L, r.logAppendTime());
    ReadResult read = log.read(0, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    try {
      RecordBatch batch = Batches.batchesOf(read.records()).get(0);
      assertEquals(TimestampType.LOG_APPEND_TIME, batch.timestampType());
      assertEquals(123_456_789L, batch.maxTimestamp());
      assertTrue(batch.isCrcValid());
      for (Batches.Rec rec : Batches.records(read.records())) {
        assertEquals(123_456_789L, rec.timestamp());
      }
    } finally {
      read.records().release();
    }
    log.updateConfig(LogConfig.defaults());
    AppendResult create = log.append(Batches.batch("u", 1, 5), new AppendOptions(1));
    assertEquals(-1, create.logAppendTime());
  }

  @Test
  void closeWritesTheActiveSegmentsSidecarAndReopenContinues() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 4, 1000));
    engine.closePartition(TP);
    assertTrue(files().contains(SegmentFile.indexName(0, 0)), files().toString());
    assertEquals(AppendResult.Status.NOT_OWNER, append(log, Batches.batch("x", 1, 1)).status());
    log = open();
    assertEquals(4, log.logEndOffset());
    assertEquals(4, appendDurably(log, Batches.batch("b", 1, 2000)).baseOffset());
    assertEquals(5, readAll(log).size());
  }

  @Test
  void everyBufferTheEngineTookIsReleasedAfterClose() throws Exception {
    PartitionLog log = open(withSegmentBytes(LogConfig.defaults(), 4000));
    for (int i = 0; i < 20; i++) {
      appendDurably(log, Batches.sized(700, 1000 + i));
    }
    readAll(log, 0, 2000);
    engine.close();
    store.close();
    engine = null;
    store = null;
    assertTrue(alloc.allocated() > 20);
    assertEquals(0, alloc.live(), "buffers still held after close");
  }

  @Test
  void leaderEpochsAreStampedAndAnswered() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 3, 1000));
    assertEquals(1, log.leaderEpoch());
    epoch = 4;
    log = restart(LogConfig.defaults());
    appendDurably(log, Batches.batch("b", 2, 1000));
    ReadResult r = log.read(0, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    try {
      List<RecordBatch> batches = Batches.batchesOf(r.records());
      assertEquals(1, batches.get(0).partitionLeaderEpoch());
      assertEquals(4, batches.get(1).partitionLeaderEpoch());
    } finally {
      r.records().release();
    }
    assertEquals(new EpochEndOffset(1, 3), log.endOffsetForEpoch(1));
    assertEquals(new EpochEndOffset(1, 3), log.endOffsetForEpoch(2));
    assertEquals(new EpochEndOffset(4, 5), log.endOffsetForEpoch(4));
    assertEquals(new EpochEndOffset(0, 0), log.endOffsetForEpoch(0));
    assertEquals(EpochEndOffset.UNKNOWN, log.endOffsetForEpoch(7));
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 256L << 20})
  void aSequentialReaderReadsEachStoreByteAboutOnce(long tailCacheBytes) throws Exception {
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 256 << 10);
    PartitionLog log = open(config);
    for (int i = 0; i < 1500; i++) {
      appendDurably(log, Batches.sized(700, 1000 + i));
    }
    long size = log.sizeInBytes();
    engineConfig = quietConfig(0, 4 << 20, 256 << 20, tailCacheBytes, 4);
    log = restart(config);
    long before = store.readBytes.get();
    assertEquals(1500, readAll(log, 0, 8 << 10).size());
    long read = store.readBytes.get() - before;
    assertTrue(read < size + size / 4, "read " + read + " bytes from the store for " + size);
  }

  @Test
  void aSequentialReadersNextBlockIsReadBeforeItAsks() throws Exception {
    PartitionLog log = open();
    for (int i = 0; i < 4000; i++) {
      appendDurably(log, Batches.sized(700, 1000 + i));
    }
    log = restart(LogConfig.defaults());
    long before = store.readBytes.get();
    ReadResult first = log.read(0, 64 << 10, Isolation.READ_UNCOMMITTED, true);
    List<Batches.Rec> records;
    try {
      records = Batches.records(first.records());
    } finally {
      first.records().release();
    }
    // The first read took one block; the block after it follows without another read.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.readBytes.get() - before < 2 * StoreReads.READ_AHEAD_BYTES - (64 << 10)
        && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertTrue(
        store.readBytes.get() - before >= 2 * StoreReads.READ_AHEAD_BYTES - (64 << 10),
        "read " + (store.readBytes.get() - before) + " bytes ahead");
    long next = records.get(records.size() - 1).offset() + 1;
    assertEquals(4000 - next, readAll(log, next, 64 << 10).size());
  }

  @Test
  void segmentsSmallerThanABlockAreReadAheadTwoAtATime() throws Exception {
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 256 << 10);
    PartitionLog log = open(config);
    for (int i = 0; i < 1500; i++) {
      appendDurably(log, Batches.sized(700, 1000 + i));
    }
    log = restart(config);
    store.slowReads(300);
    // The first read is the reader's own and takes segment 0; the read-ahead it starts takes
    // segment 1. The next read, served from memory, starts one for segment 2 meanwhile.
    for (int i = 0; i < 2; i++) {
      ReadResult r = log.read(i * 100, 16 << 10, Isolation.READ_UNCOMMITTED, true);
      r.records().release();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.mostReadsAtOnce.get() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(2, store.mostReadsAtOnce.get(), "store reads at once");
    store.slowReads(0);
    long before = store.readBytes.get();
    List<Batches.Rec> all = readAll(log, 0, 64 << 10);
    assertEquals(1500, all.size());
    for (int i = 0; i < all.size(); i++) {
      assertEquals(i, all.get(i).offset());
    }
    assertTrue(
        store.readBytes.get() - before < log.sizeInBytes(),
        "read "
            + (store.readBytes.get() - before)
            + " more bytes, the log has "
            + log.sizeInBytes());
  }

  @Test
  void readCachedServesMemoryOnlyAndNeverTheStore() throws Exception {
    PartitionLog log = open();
    for (int i = 0; i < 10; i++) {
      appendDurably(log, Batches.sized(700, 1000 + i));
    }
    ReadResult tail = log.readCached(4, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    try {
      assertEquals(6, Batches.records(tail.records()).size());
    } finally {
      tail.records().release();
    }
    ReadResult end = log.readCached(10, 1 << 20, Isolation.READ_UNCOMMITTED, true);
    assertEquals(ReadResult.Status.OK, end.status());
    assertEquals(0, end.records().readableBytes());
    assertEquals(
        ReadResult.Status.OFFSET_OUT_OF_RANGE,
        log.readCached(11, 1 << 20, Isolation.READ_UNCOMMITTED, true).status());

    log = restart(LogConfig.defaults());
    long before = store.readBytes.get();
    assertEquals(null, log.readCached(0, 1 << 20, Isolation.READ_UNCOMMITTED, true));
    assertEquals(before, store.readBytes.get());
    assertEquals(10, readAll(log).size());
  }
}
