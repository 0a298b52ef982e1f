package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Kafka's idempotent-producer rules, through the partition log. */
class IdempotentProducerTest extends LogTestSupport {
  private static final short E0 = 0;
  private static final short E1 = 1;

  private static AppendResult.Status status(
      PartitionLog log, long pid, short epoch, int seq, int n) {
    return append(log, Batches.idempotent(pid, epoch, seq, n)).status();
  }

  @Test
  void aRetriedBatchIsADuplicateAnsweredWithItsOriginalOffsets() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.idempotent(1, E0, 0, 5));
    appendDurably(log, Batches.batch("other", 3, 1000));
    appendDurably(log, Batches.idempotent(1, E0, 5, 2));
    AppendResult dup = append(log, Batches.idempotent(1, E0, 0, 5));
    assertEquals(AppendResult.Status.DUPLICATE, dup.status());
    assertEquals(0, dup.baseOffset());
    assertEquals(4, dup.lastOffset());
    dup.durable().get(10, TimeUnit.SECONDS);
    AppendResult dup2 = append(log, Batches.idempotent(1, E0, 5, 2));
    assertEquals(8, dup2.baseOffset());
    assertEquals(9, dup2.lastOffset());
    assertEquals(10, log.logEndOffset(), "a duplicate was appended");
  }

  @Test
  void onlyTheLastFiveBatchesAreRecognised() throws Exception {
    PartitionLog log = open();
    for (int seq = 0; seq < 6; seq++) {
      appendDurably(log, Batches.idempotent(1, E0, seq, 1));
    }
    for (int seq = 1; seq < 6; seq++) {
      assertEquals(AppendResult.Status.DUPLICATE, status(log, 1, E0, seq, 1));
    }
    assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, status(log, 1, E0, 0, 1));
  }

  @Test
  void aGapInSequencesIsRejectedAndNothingIsAppended() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.idempotent(1, E0, 0, 5));
    assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, status(log, 1, E0, 6, 1));
    assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, status(log, 1, E0, 3, 1));
    assertEquals(5, log.logEndOffset());
    assertEquals(5, appendDurably(log, Batches.idempotent(1, E0, 5, 1)).baseOffset());
  }

  @Test
  void epochRules() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.idempotent(1, E0, 0, 3));
    assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, status(log, 1, E1, 3, 1));
    assertEquals(AppendResult.Status.OK, status(log, 1, E1, 0, 2));
    assertEquals(AppendResult.Status.INVALID_PRODUCER_EPOCH, status(log, 1, E0, 3, 1));
    assertEquals(AppendResult.Status.INVALID_PRODUCER_EPOCH, status(log, 1, E0, 0, 3));
    assertEquals(AppendResult.Status.OK, status(log, 1, E1, 2, 1));
  }

  @Test
  void anUnknownProducerMayStartAtAnySequenceAndSequencesWrap() throws Exception {
    PartitionLog log = open();
    assertEquals(AppendResult.Status.OK, status(log, 9, E0, 42, 1));
    assertEquals(AppendResult.Status.OK, status(log, 9, E0, 43, 1));
    assertEquals(AppendResult.Status.OK, status(log, 5, E0, Integer.MAX_VALUE - 1, 2));
    assertEquals(AppendResult.Status.OK, status(log, 5, E0, 0, 1));
  }

  @Test
  void aDuplicateOfAPendingBatchBecomesDurableWithIt() throws Exception {
    PartitionLog log = open();
    store.closeGate();
    AppendResult first = append(log, Batches.idempotent(1, E0, 0, 2));
    AppendResult dup = append(log, Batches.idempotent(1, E0, 0, 2));
    assertEquals(AppendResult.Status.DUPLICATE, dup.status());
    Thread.sleep(50);
    assertFalse(dup.durable().isDone(), "a duplicate acknowledged before its original is durable");
    store.openGate();
    dup.durable().get(10, TimeUnit.SECONDS);
    first.durable().get(10, TimeUnit.SECONDS);
  }

  @Test
  void oneAppendOfSeveralBatchesIsCheckedAsAWhole() throws Exception {
    PartitionLog log = open();
    ByteBuf both =
        Unpooled.wrappedBuffer(Batches.idempotent(1, E0, 0, 2), Batches.idempotent(1, E0, 2, 2));
    AppendResult ok = append(log, both);
    assertEquals(AppendResult.Status.OK, ok.status());
    assertEquals(3, ok.lastOffset());
    ByteBuf gap =
        Unpooled.wrappedBuffer(Batches.idempotent(1, E0, 4, 1), Batches.idempotent(1, E0, 9, 1));
    assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, append(log, gap).status());
    assertEquals(4, log.logEndOffset());
    assertEquals(AppendResult.Status.OK, status(log, 1, E0, 4, 1));
  }

  @Test
  void stateSurvivesACleanRestart() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.idempotent(1, E0, 0, 2));
    appendDurably(log, Batches.idempotent(2, E1, 0, 1));
    log = restart(LogConfig.defaults());
    assertEquals(AppendResult.Status.DUPLICATE, status(log, 1, E0, 0, 2));
    assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, status(log, 1, E0, 3, 1));
    assertEquals(AppendResult.Status.INVALID_PRODUCER_EPOCH, status(log, 2, E0, 1, 1));
    assertEquals(AppendResult.Status.OK, status(log, 1, E0, 2, 1));
  }

  @Test
  void producersWhoseBatchesAreDeletedOrWhoIdledTooLongAreForgotten() throws Exception {
    PartitionLog log = open();
    appendDurably(log, Batches.idempotent(1, E0, 0, 2));
    appendDurably(log, Batches.idempotent(2, E0, 0, 2));
    assertEquals(true, log.deleteRecordsBefore(2).ok());
    assertEquals(AppendResult.Status.OK, status(log, 1, E0, 17, 1), "producer 1 not forgotten");
    assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE, status(log, 2, E0, 17, 1));
    LogRetention.run((SegmentLog) log, System.currentTimeMillis() + 2 * 86_400_000L, 86_400_000L);
    assertEquals(AppendResult.Status.OK, status(log, 2, E0, 17, 1), "producer 2 not expired");
  }
}
