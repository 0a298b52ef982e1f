package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kelp.codec.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** ListOffsets by timestamp and max timestamp. */
class TimeLookupsTest extends LogTestSupport {

  private static ByteBuf withTimestamps(long... timestamps) {
    RecordBatchBuilder b = new RecordBatchBuilder();
    for (long ts : timestamps) {
      b.append(ts, null, new byte[20]);
    }
    ByteBuf built = b.build();
    ByteBuf heap = Unpooled.copiedBuffer(built);
    built.release();
    return heap;
  }

  private static Optional<TimestampOffset> at(long timestamp, long offset) {
    return Optional.of(new TimestampOffset(timestamp, offset));
  }

  @Test
  void theFirstBatchReachingTheTimeThenItsFirstRecordReachingIt() throws Exception {
    PartitionLog log = open();
    appendDurably(log, withTimestamps(1000, 1001, 1002));
    appendDurably(log, withTimestamps(2000, 1500));
    appendDurably(log, withTimestamps(3000));
    assertEquals(at(1000, 0), log.offsetForTimestamp(0));
    assertEquals(at(1001, 1), log.offsetForTimestamp(1001));
    assertEquals(at(2000, 3), log.offsetForTimestamp(1003));
    assertEquals(at(2000, 3), log.offsetForTimestamp(1600));
    assertEquals(at(3000, 5), log.offsetForTimestamp(2001));
    assertEquals(Optional.empty(), log.offsetForTimestamp(3001));
    assertEquals(at(3000, 5), log.maxTimestamp());
  }

  @Test
  void lookupsAgreeWithAScanAcrossSegmentsAndSparseIndexes() throws Exception {
    LogConfig c = withSegmentBytes(LogConfig.defaults(), 4096);
    LogConfig config =
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
            c.logAppendTime(),
            300);
    PartitionLog log = open(config);
    Random random = new Random(3);
    List<long[]> records = new ArrayList<>();
    long ts = 10_000;
    long offset = 0;
    for (int i = 0; i < 300; i++) {
      int n = 1 + random.nextInt(3);
      long[] times = new long[n];
      for (int j = 0; j < n; j++) {
        ts += random.nextInt(20);
        times[j] = ts - random.nextInt(50);
        records.add(new long[] {offset++, times[j]});
      }
      appendDurably(log, withTimestamps(times));
    }
    log = restart(config);
    for (long t = 9_000; t <= ts + 10; t += 37) {
      assertEquals(bruteForce(records, t), log.offsetForTimestamp(t), "timestamp " + t);
    }
    long[] max = records.get(0);
    for (long[] r : records) {
      if (r[1] > max[1]) {
        max = r;
      }
    }
    assertEquals(at(max[1], max[0]), log.maxTimestamp());
  }

  /** Kafka's answer computed from every record: batches are not needed when all are whole. */
  private static Optional<TimestampOffset> bruteForce(List<long[]> records, long t) {
    // The engine looks for the first batch whose max reaches t, then the first record in it that
    // reaches t; with whole batches that is the first record reaching t whose batch max reaches t,
    // which is simply the first record reaching t.
    for (long[] r : records) {
      if (r[1] >= t) {
        return at(r[1], r[0]);
      }
    }
    return Optional.empty();
  }

  @Test
  void dataNotYetDurableIsNotFound() throws Exception {
    PartitionLog log = open();
    appendDurably(log, withTimestamps(1000));
    store.closeGate();
    append(log, withTimestamps(9000));
    assertEquals(Optional.empty(), log.offsetForTimestamp(5000));
    assertEquals(at(1000, 0), log.maxTimestamp());
    store.openGate();
  }
}
