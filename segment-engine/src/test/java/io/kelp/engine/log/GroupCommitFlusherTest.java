package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Group commit: appends that arrive during a flush go to the store together. */
class GroupCommitFlusherTest extends LogTestSupport {

  @Test
  void appendsArrivingDuringAFlushGoInTheNextOneTogether() throws Exception {
    PartitionLog log = open();
    store.closeGate();
    AppendResult first = append(log, Batches.batch("first", 1, 1000));
    Thread.sleep(50);
    List<AppendResult> during = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      during.add(append(log, Batches.batch("during" + i, 1, 1000)));
    }
    store.openGate();
    first.durable().get(10, TimeUnit.SECONDS);
    for (AppendResult r : during) {
      r.durable().get(10, TimeUnit.SECONDS);
    }
    assertEquals(2, store.appends.get(), "expected one store append for the 20 waiting batches");
    assertEquals(21, readAll(log).size());
  }

  @Test
  void onePartitionsFailingStoreDoesNotHoldUpTheOthers() throws Exception {
    startEngine();
    PartitionLog a =
        engine.open(new TopicPartition("a", 0), "/topics/kafka/a/v1/p0", LogConfig.defaults(), 1);
    PartitionLog b =
        engine.open(new TopicPartition("b", 0), "/topics/kafka/b/v1/p0", LogConfig.defaults(), 1);
    store.failAppends(3, 0);
    AppendResult ra = append(a, Batches.batch("a", 1, 1000));
    Thread.sleep(20);
    for (int i = 0; i < 5; i++) {
      appendDurably(b, Batches.batch("b" + i, 1, 1000));
    }
    ra.durable().get(10, TimeUnit.SECONDS);
    assertEquals(1, a.highWatermark());
    assertEquals(5, b.highWatermark());
  }

  @Test
  void aFlushDelayWaitsForMoreDataUntilFlushMaxBytes() throws Exception {
    int batch = Batches.sized(1000, 1).readableBytes();
    engineConfig = quietConfig(60_000, 5L * batch, 64 << 20, 1 << 20, 2);
    PartitionLog log = open();
    List<AppendResult> results = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      results.add(append(log, Batches.sized(1000, 1000 + i)));
    }
    Thread.sleep(100);
    assertFalse(results.get(0).durable().isDone(), "flushed before the delay or the byte limit");
    assertEquals(0, store.appends.get());
    results.add(append(log, Batches.sized(1000, 2000)));
    for (AppendResult r : results) {
      r.durable().get(10, TimeUnit.SECONDS);
    }
    assertEquals(1, store.appends.get());
  }

  @Test
  void deletingAPartitionDropsItsDataAndDirectory() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.batch("a", 3, 1000));
    engine.deletePartition(TP);
    assertTrue(engine.get(TP).isEmpty());
    assertFalse(java.nio.file.Files.exists(file("")));
    assertEquals(AppendResult.Status.NOT_OWNER, append(log, Batches.batch("b", 1, 1)).status());
    log = open();
    assertEquals(0, log.logEndOffset());
  }
}
