package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.segment.SegmentFile;
import io.kelp.engine.segment.SegmentSidecar;
import io.kelp.engine.store.FencedException;
import io.kelp.engine.store.LocalObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Restarts after kill -9, torn writes and damaged sidecars. */
class LogRecoveryTest extends LogTestSupport {

  @Test
  void aKilledEngineComesBackWithEverythingAcknowledged() throws Exception {
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 2500);
    PartitionLog log = open(config);
    for (int i = 0; i < 9; i++) {
      appendDurably(log, Batches.sized(900, 1000 + i));
    }
    log = crashAndRestart(config);
    assertEquals(9, log.logEndOffset());
    assertEquals(9, log.highWatermark());
    assertEquals(9, readAll(log).size());
    assertEquals(9, appendDurably(log, Batches.sized(900, 2000)).baseOffset());
    assertEquals(10, readAll(log).size());
  }

  @Test
  void aTornTailIsNeverServedAndAppendsContinueInANewSegment() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 3, 1000));
    appendDurably(log, Batches.batch("b", 2, 1000));
    long validBytes = Files.size(file(SegmentFile.logName(0, 0)));
    store.tearNextAppend(30);
    AppendResult torn = append(log, Batches.batch("torn", 4, 1000));
    assertEquals(5, torn.baseOffset());
    Thread.sleep(200);
    assertFalse(torn.durable().isDone());
    assertEquals(validBytes + 30, Files.size(file(SegmentFile.logName(0, 0))));

    log = crashAndRestart(LogConfig.defaults());
    assertEquals(5, log.logEndOffset());
    assertEquals(5, log.highWatermark());
    List<Batches.Rec> recs = readAll(log);
    assertEquals(5, recs.size());
    assertTrue(recs.stream().noneMatch(r -> r.value().startsWith("torn")));
    SegmentSidecar.Contents sidecar = sidecar(SegmentFile.indexName(0, 0));
    assertTrue(sidecar.sealed());
    assertEquals(validBytes, sidecar.validLength());

    assertEquals(5, appendDurably(log, Batches.batch("c", 2, 1000)).baseOffset());
    assertTrue(files().contains(SegmentFile.logName(5, 0)), files().toString());
    log = restart(LogConfig.defaults());
    List<String> values = readAll(log).stream().map(Batches.Rec::value).toList();
    assertEquals(List.of("a-0", "a-1", "a-2", "b-0", "b-1", "c-0", "c-1"), values);
    assertEquals(7, log.highWatermark());
  }

  @Test
  void aPartitionWhoseDirectoryWasRemovedIsReopenedEmptyWithAWarning() throws Exception {
    try (LogCapture warnings = new LogCapture(SegmentLogEngine.class)) {
      PartitionLog log = open();
      appendDurably(log, Batches.batch("a", 3, 1000));
      engine.close();
      store.close();
      engine = null;
      startEngine();
      assertEquals(3, engine.reopen(TP, DIR, LogConfig.defaults(), epoch).logEndOffset());
      assertEquals(List.of(), warnings.lines(), "creating and reopening a partition is quiet");

      engine.close();
      store.close();
      try (Stream<Path> files = Files.walk(root.resolve(DIR.substring(1)))) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
      startEngine();
      PartitionLog reopened = engine.reopen(TP, DIR, LogConfig.defaults(), epoch);
      assertEquals(0, reopened.logEndOffset());
      List<String> lines = warnings.lines();
      assertEquals(1, lines.size(), lines.toString());
      assertTrue(
          lines.get(0).startsWith("WARN " + TP + ": " + DIR + " has no partition.meta"),
          lines.get(0));
      assertEquals(0, appendDurably(reopened, Batches.batch("b", 1, 1000)).baseOffset());
    }
  }

  @Test
  void aSegmentWithNoValidBatchIsDeletedAndItsOffsetsStartOver() throws Exception {
    PartitionLog log = open();
    store.tearNextAppend(10);
    append(log, Batches.batch("torn", 2, 1000));
    Thread.sleep(100);
    log = crashAndRestart(LogConfig.defaults());
    assertEquals(0, log.logEndOffset());
    assertFalse(files().contains(SegmentFile.logName(0, 0)), files().toString());
    assertEquals(0, appendDurably(log, Batches.batch("a", 2, 1000)).baseOffset());
    assertEquals(List.of("a-0", "a-1"), readAll(log).stream().map(Batches.Rec::value).toList());
  }

  @Test
  void producerStateComesBackAfterACrash() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.idempotent(7, (short) 0, 0, 5));
    appendDurably(log, Batches.idempotent(7, (short) 0, 5, 5));
    log = crashAndRestart(LogConfig.defaults());
    AppendResult retry = append(log, Batches.idempotent(7, (short) 0, 5, 5));
    assertEquals(AppendResult.Status.DUPLICATE, retry.status());
    assertEquals(5, retry.baseOffset());
    assertEquals(9, retry.lastOffset());
    assertEquals(
        AppendResult.Status.OUT_OF_ORDER_SEQUENCE,
        append(log, Batches.idempotent(7, (short) 0, 12, 1)).status());
    assertEquals(10, appendDurably(log, Batches.idempotent(7, (short) 0, 10, 1)).baseOffset());
    // and again after a clean restart, from the checkpoint sidecar
    log = restart(LogConfig.defaults());
    assertEquals(
        AppendResult.Status.DUPLICATE,
        append(log, Batches.idempotent(7, (short) 0, 10, 1)).status());
  }

  @Test
  void missingAndDamagedSidecarsAreRebuilt() throws Exception {
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 2500);
    PartitionLog log = open(config);
    for (int i = 0; i < 8; i++) {
      appendDurably(log, Batches.idempotent(3, (short) 0, i, 1));
      appendDurably(log, Batches.sized(900, 1000 + i));
    }
    engine.close();
    store.close();
    engine = null;
    List<String> sidecars = files().stream().filter(f -> f.endsWith(".index")).toList();
    assertTrue(sidecars.size() >= 3, sidecars.toString());
    Files.delete(file(sidecars.get(0)));
    byte[] damaged = Files.readAllBytes(file(sidecars.get(1)));
    damaged[damaged.length - 1] ^= 1;
    Files.write(file(sidecars.get(1)), damaged);
    Files.delete(file(sidecars.get(sidecars.size() - 1)));

    log = open(config);
    assertEquals(16, log.logEndOffset());
    assertEquals(16, readAll(log).size());
    for (String s : sidecars.subList(0, sidecars.size() - 1)) {
      assertTrue(sidecar(s).sealed(), s);
    }
    assertEquals(
        AppendResult.Status.DUPLICATE,
        append(log, Batches.idempotent(3, (short) 0, 7, 1)).status());
  }

  @Test
  void aFailedAppendThatWrotePartOfItsBytesIsLeftBehindAValidLength() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 2, 1000));
    store.failAppends(1, 25);
    AppendResult r = append(log, Batches.batch("b", 2, 1000));
    r.durable().get(10, TimeUnit.SECONDS);
    appendDurably(log, Batches.batch("c", 1, 1000));
    List<String> values = readAll(log).stream().map(Batches.Rec::value).toList();
    assertEquals(List.of("a-0", "a-1", "b-0", "b-1", "c-0"), values);
    assertTrue(files().contains(SegmentFile.logName(2, 0)), files().toString());
    log = crashAndRestart(LogConfig.defaults());
    assertEquals(values, readAll(log).stream().map(Batches.Rec::value).toList());
  }

  @Test
  void aNewerOwnerFencesThisOne() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 1, 1000));
    store.claim(DIR, 2);
    AppendResult r = append(log, Batches.batch("b", 1, 1000));
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> r.durable().get(10, TimeUnit.SECONDS));
    assertInstanceOf(FencedException.class, e.getCause());
    assertEquals(AppendResult.Status.NOT_OWNER, append(log, Batches.batch("c", 1, 1)).status());
    assertEquals(
        ReadResult.Status.NOT_OWNER, log.read(0, 100, Isolation.READ_UNCOMMITTED, true).status());
    assertThrows(FencedException.class, () -> engine.open(TP, DIR, LogConfig.defaults(), 1));
  }

  @Test
  void theOfflineReaderSeesWhatRecoveryWouldAndNoTornByte() throws Exception {
    PartitionLog log = open(withSegmentBytes(LogConfig.defaults(), 2500));
    for (int i = 0; i < 6; i++) {
      appendDurably(log, Batches.sized(900, 1000 + i));
    }
    store.tearNextAppend(40);
    append(log, Batches.sized(900, 5000));
    Thread.sleep(100);
    store.crash();
    engine.halt();
    engine = null;
    LocalObjectStore offline = new LocalObjectStore(root, alloc);
    List<Long> offsets = new ArrayList<>();
    LogReader.readBatches(
        offline,
        DIR,
        2,
        batch -> {
          offsets.add(batch.getLong(batch.readerIndex()));
          return true;
        });
    assertEquals(List.of(2L, 3L, 4L, 5L), offsets);
    offline.close();
  }

  @Test
  void garbageAppendedToASealedSegmentIsIgnored() throws Exception {
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 2000);
    PartitionLog log = open(config);
    for (int i = 0; i < 4; i++) {
      appendDurably(log, Batches.sized(900, 1000 + i));
    }
    engine.close();
    store.close();
    engine = null;
    Files.write(file(SegmentFile.logName(0, 0)), new byte[100], StandardOpenOption.APPEND);
    log = open(config);
    assertEquals(4, readAll(log).size());
  }

  @Test
  void theActiveSegmentIsCheckpointedSoACrashScansLittle() throws Exception {
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 40_000);
    PartitionLog log = open(config);
    for (int i = 0; i < 25; i++) {
      appendDurably(log, Batches.idempotent(8, (short) 0, i, 1));
      appendDurably(log, Batches.sized(1000, 1000 + i));
    }
    assertTrue(files().contains(SegmentFile.indexName(0, 0)), files().toString());
    SegmentSidecar.Contents checkpoint = sidecar(SegmentFile.indexName(0, 0));
    assertFalse(checkpoint.sealed());
    assertTrue(checkpoint.validLength() >= 10_000);
    assertTrue(checkpoint.validLength() < Files.size(file(SegmentFile.logName(0, 0))));
    log = crashAndRestart(config);
    assertEquals(50, log.logEndOffset());
    assertEquals(50, readAll(log).size());
    assertEquals(
        AppendResult.Status.DUPLICATE,
        append(log, Batches.idempotent(8, (short) 0, 24, 1)).status());
    assertEquals(50, appendDurably(log, Batches.sized(1000, 5000)).baseOffset());
  }

  private SegmentSidecar.Contents sidecar(String name) throws Exception {
    ByteBuf data = Unpooled.wrappedBuffer(Files.readAllBytes(file(name)));
    return SegmentSidecar.decode(data);
  }
}
