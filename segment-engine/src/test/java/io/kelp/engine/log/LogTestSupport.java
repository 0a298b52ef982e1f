package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.store.LocalObjectStore;
import io.netty.buffer.ByteBuf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real engine over a real local store in a temporary directory (behind a fault injector that is
 * transparent until told otherwise), with helpers to append and read through the public API.
 */
abstract class LogTestSupport {
  static final TopicPartition TP = new TopicPartition("orders", 0);
  static final String DIR = "/topics/kafka/orders/v1/0000-2520";

  @TempDir Path root;
  TrackingAllocator alloc = new TrackingAllocator();
  FaultInjectingStore store;
  SegmentLogEngine engine;
  EngineConfig engineConfig = quietConfig(0, 4L << 20, 256L << 20, 256L << 20, 8);
  long epoch = 1;

  /**
   * An engine config whose background retention and cleaner stay out of the way: tests write old
   * timestamps and run maintenance themselves.
   */
  static EngineConfig quietConfig(
      long flushMaxDelayMs, long flushMaxBytes, long memoryMaxBytes, long tailCacheBytes, int io) {
    return quietConfig(flushMaxDelayMs, flushMaxBytes, memoryMaxBytes, tailCacheBytes, io, 0);
  }

  /**
   * {@link #quietConfig(long, long, long, long, int)} whose flushes gather up to {@code gatherMs}.
   */
  static EngineConfig quietConfig(
      long flushMaxDelayMs,
      long flushMaxBytes,
      long memoryMaxBytes,
      long tailCacheBytes,
      int io,
      long gatherMs) {
    return quietConfig(
        flushMaxDelayMs, flushMaxBytes, memoryMaxBytes, tailCacheBytes, io, gatherMs, 0);
  }

  private static EngineConfig quietConfig(
      long flushMaxDelayMs,
      long flushMaxBytes,
      long memoryMaxBytes,
      long tailCacheBytes,
      int io,
      long gatherMs,
      long lazyMs) {
    long hour = 3_600_000L;
    return new EngineConfig(
        flushMaxDelayMs,
        flushMaxBytes,
        memoryMaxBytes,
        tailCacheBytes,
        io,
        hour,
        EngineConfig.DEFAULT_PRODUCER_ID_EXPIRATION_MS,
        hour,
        EngineConfig.DEFAULT_CLEANER_DEDUPE_BUFFER_BYTES,
        gatherMs,
        lazyMs);
  }

  /**
   * A quiet engine that flushes at once what is waited for, and holds back up to {@code lazyMs}, or
   * until {@code flushMaxBytes} are pending, what nothing waits for.
   */
  static EngineConfig lazyConfig(long lazyMs, long flushMaxBytes) {
    return quietConfig(0, flushMaxBytes, 64L << 20, 1L << 20, 2, 0, lazyMs);
  }

  /** Appends as an acks=1 producer does: nothing waits for the records to be durable. */
  static AppendResult appendUnawaited(PartitionLog log, ByteBuf batch) {
    return log.append(batch, new AppendOptions(System.currentTimeMillis(), false));
  }

  /** Starts a fresh engine (as after a restart) over the same directory. */
  SegmentLogEngine startEngine() throws Exception {
    store = new FaultInjectingStore(new LocalObjectStore(root, alloc));
    engine = new SegmentLogEngine(store, engineConfig, alloc);
    return engine;
  }

  PartitionLog open(LogConfig config) throws Exception {
    if (engine == null) {
      startEngine();
    }
    return engine.open(TP, DIR, config, epoch);
  }

  PartitionLog open() throws Exception {
    return open(LogConfig.defaults());
  }

  /** Closes the engine cleanly and starts a new one, then reopens the log. */
  PartitionLog restart(LogConfig config) throws Exception {
    engine.close();
    store.close();
    startEngine();
    return open(config);
  }

  /** Kills the engine as kill -9 would, then starts a new one and reopens the log. */
  PartitionLog crashAndRestart(LogConfig config) throws Exception {
    store.crash();
    engine.halt();
    startEngine();
    return open(config);
  }

  @AfterEach
  void closeEngine() throws Exception {
    if (engine != null) {
      engine.close();
    }
    if (store != null) {
      store.close();
    }
  }

  static AppendResult append(PartitionLog log, ByteBuf batch) {
    return log.append(batch, new AppendOptions(System.currentTimeMillis()));
  }

  /** Appends and waits until durable, as an acks=all producer does. */
  static AppendResult appendDurably(PartitionLog log, ByteBuf batch) throws Exception {
    AppendResult r = append(log, batch);
    assertEquals(AppendResult.Status.OK, r.status(), r.message());
    r.durable().get(10, TimeUnit.SECONDS);
    return r;
  }

  /** Every record from {@code offset} to the high watermark, reading in steps of maxBytes. */
  static List<Batches.Rec> readAll(PartitionLog log, long offset, int maxBytes) {
    List<Batches.Rec> out = new ArrayList<>();
    long next = offset;
    while (next < log.highWatermark()) {
      ReadResult r = log.read(next, maxBytes, Isolation.READ_UNCOMMITTED, true);
      try {
        assertEquals(ReadResult.Status.OK, r.status());
        List<Batches.Rec> recs = Batches.records(r.records());
        if (recs.isEmpty()) {
          break;
        }
        for (Batches.Rec rec : recs) {
          if (rec.offset() >= next) {
            out.add(rec);
          }
        }
        next = recs.get(recs.size() - 1).offset() + 1;
      } finally {
        r.records().release();
      }
    }
    return out;
  }

  static List<Batches.Rec> readAll(PartitionLog log) {
    return readAll(log, log.logStartOffset(), 1 << 20);
  }

  /** The files of the partition directory, by name. */
  List<String> files() throws Exception {
    Path dir = root.resolve(DIR.substring(1));
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  Path file(String name) {
    return root.resolve(DIR.substring(1)).resolve(name);
  }

  static LogConfig withSegmentBytes(LogConfig c, long segmentBytes) {
    return new LogConfig(
        segmentBytes,
        c.segmentMs(),
        c.retentionMs(),
        c.retentionBytes(),
        c.delete(),
        c.compact(),
        c.deleteRetentionMs(),
        c.minCompactionLagMs(),
        c.minCleanableDirtyRatio(),
        c.logAppendTime(),
        c.indexIntervalBytes());
  }
}
