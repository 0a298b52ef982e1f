package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Many appenders on several partitions while readers follow them. */
class SegmentLogConcurrentTest extends LogTestSupport {
  private static final int PARTITIONS = 4;
  private static final int WRITERS = 6;
  private static final int APPENDS_PER_WRITER = 300;

  record Acked(int partition, long base, long last, String prefix, int count) {}

  @Test
  void offsetsAreUniqueAndDenseAndEveryAcknowledgedBatchIsReadable() throws Exception {
    engineConfig = quietConfig(0, 1 << 20, 64 << 20, 256 << 10, 4);
    startEngine();
    LogConfig config = withSegmentBytes(LogConfig.defaults(), 64 << 10);
    List<PartitionLog> logs = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      logs.add(engine.open(new TopicPartition("t", p), "/topics/kafka/t/v1/p" + p, config, 1));
    }
    List<Acked> acked = new CopyOnWriteArrayList<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    Map<Integer, String> readerProblems = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 2);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int id = w;
        writers.add(pool.submit(() -> write(id, logs, acked)));
      }
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        int id = r;
        readers.add(pool.submit(() -> follow(id, logs, writing, readerProblems)));
      }
      for (Future<?> f : writers) {
        f.get(120, TimeUnit.SECONDS);
      }
      writing.set(false);
      for (Future<?> f : readers) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertTrue(readerProblems.isEmpty(), readerProblems.toString());
    assertEquals(WRITERS * APPENDS_PER_WRITER, acked.size());
    for (int p = 0; p < PARTITIONS; p++) {
      PartitionLog log = logs.get(p);
      int partition = p;
      List<Acked> mine =
          acked.stream()
              .filter(a -> a.partition == partition)
              .sorted((a, b) -> Long.compare(a.base, b.base))
              .toList();
      long expected = 0;
      for (Acked a : mine) {
        assertEquals(expected, a.base, "offsets not dense in partition " + p);
        expected = a.last + 1;
      }
      assertEquals(expected, log.logEndOffset());
      List<Batches.Rec> records = readAll(log, 0, 32 << 10);
      assertEquals(expected, records.size());
      for (Acked a : mine) {
        for (int i = 0; i < a.count; i++) {
          Batches.Rec rec = records.get((int) (a.base + i));
          assertEquals(a.base + i, rec.offset());
          assertEquals(a.prefix + "-" + i, rec.value());
        }
      }
    }
  }

  private static Void write(int writer, List<PartitionLog> logs, List<Acked> acked)
      throws Exception {
    Random random = new Random(writer);
    for (int i = 0; i < APPENDS_PER_WRITER; i++) {
      int p = random.nextInt(PARTITIONS);
      int count = 1 + random.nextInt(5);
      String prefix = "w" + writer + "." + i;
      AppendResult r = append(logs.get(p), Batches.batch(prefix, count, 1000));
      assertEquals(AppendResult.Status.OK, r.status());
      r.durable().get(30, TimeUnit.SECONDS);
      acked.add(new Acked(p, r.baseOffset(), r.lastOffset(), prefix, count));
    }
    return null;
  }

  /** Reads each partition from its start as it grows, checking offsets never repeat or skip. */
  private static Void follow(
      int reader, List<PartitionLog> logs, AtomicBoolean writing, Map<Integer, String> problems) {
    long[] next = new long[PARTITIONS];
    boolean last = false;
    while (true) {
      boolean more = writing.get();
      for (int p = 0; p < PARTITIONS; p++) {
        PartitionLog log = logs.get(p);
        while (next[p] < log.highWatermark()) {
          ReadResult r = log.read(next[p], 16 << 10, Isolation.READ_UNCOMMITTED, true);
          try {
            if (r.status() != ReadResult.Status.OK) {
              problems.put(reader, "status " + r.status() + " at " + next[p]);
              return null;
            }
            for (Batches.Rec rec : Batches.records(r.records())) {
              if (rec.offset() < next[p]) {
                continue;
              }
              if (rec.offset() != next[p]) {
                problems.put(reader, "partition " + p + ": expected " + next[p] + ", got " + rec);
                return null;
              }
              next[p]++;
            }
          } finally {
            r.records().release();
          }
        }
      }
      if (last) {
        return null;
      }
      last = !more;
    }
  }
}
