package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

  /**
   * The store hears of each cycle's writers, so that it can send their round trips together: as
   * many as the cycle has partitions, up to the io threads, and every append runs inside one.
   */
  @Test
  void theStoreIsToldOfTheWritersOfEachCycle() throws Exception {
    // A cycle starts 200 ms after its first append, so that b and c share one.
    long delayMs = 200;
    engineConfig = quietConfig(delayMs, 4L << 20, 64 << 20, 1 << 20, 2);
    startEngine();
    PartitionLog a = openTopic("a");
    PartitionLog b = openTopic("b");
    PartitionLog c = openTopic("c");
    store.closeGate();
    AppendResult first = append(a, Batches.batch("a", 1, 1000));
    // a's write hangs at the gate, and after STALL_MS its cycle ends without it
    Thread.sleep(delayMs + GroupCommitFlusher.STALL_MS * 3);
    AppendResult second = append(b, Batches.batch("b", 1, 1000));
    AppendResult third = append(c, Batches.batch("c", 1, 1000));
    Thread.sleep(delayMs + GroupCommitFlusher.STALL_MS * 3);
    store.openGate();
    for (AppendResult r : List.of(first, second, third)) {
      r.durable().get(10, TimeUnit.SECONDS);
    }
    assertEquals(List.of(1, 2), store.expectedWriters.subList(0, 2), "a alone, then b and c");
    for (int n : store.expectedWriters) {
      assertTrue(n >= 1 && n <= 2, "never more writers than io threads: " + store.expectedWriters);
    }
    assertEquals(0, store.appendsOutsideWriters.get(), "appends outside a writer");
  }

  /**
   * A log is published once it has been left alone for a while after its writes, not while it is
   * written to, and not again until it is written to again; its records are all there after.
   */
  @Test
  void anIdleLogIsPublishedOnceAfterItsWrites() throws Exception {
    PartitionLog log = open();
    long idleNanos = TimeUnit.MILLISECONDS.toNanos(GroupCommitFlusher.PUBLISH_IDLE_MS);
    long start = System.nanoTime();
    int written = 0;
    // Written to every 100 ms for more than the idle time: no publish meanwhile.
    while (System.nanoTime() - start < idleNanos + idleNanos / 2) {
      appendDurably(log, Batches.batch("busy" + written, 1, 100));
      written++;
      Thread.sleep(100);
    }
    assertEquals(0, store.publishes.get(), "published while written to");
    long deadline = System.nanoTime() + 3 * idleNanos;
    while (store.publishes.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(1, store.publishes.get(), "published once left alone");
    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(idleNanos * 2));
    assertEquals(1, store.publishes.get(), "not again without a write");
    appendDurably(log, Batches.batch("again", 1, 100));
    deadline = System.nanoTime() + 3 * idleNanos;
    while (store.publishes.get() == 1 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(2, store.publishes.get(), "published again after the next write");
    assertEquals(written + 1, readAll(log).size());
  }

  @Test
  void onePartitionsFailingStoreDoesNotHoldUpTheOthers() throws Exception {
    startEngine();
    PartitionLog a = openTopic("a");
    PartitionLog b = openTopic("b");
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
  void oneSlowWriteDoesNotStallTheOtherPartitions() throws Exception {
    startEngine();
    PartitionLog slow = openTopic("s");
    PartitionLog fast = openTopic("f");
    // a write that hangs, as on a stuck volume server: only a gate in the store can do that
    // Written alone cycle after cycle, the partition is then written on the flusher thread itself.
    for (int i = 0; i < GroupCommitFlusher.INLINE_AFTER_CYCLES; i++) {
      appendDurably(slow, Batches.batch("w" + i, 1, 1000));
    }
    int before = GroupCommitFlusher.INLINE_AFTER_CYCLES;
    store.closeGateFor("/topics/kafka/s/");
    AppendResult stuck = append(slow, Batches.batch("s", 1, 1000));
    // After STALL_MS a new flusher thread takes over from the stuck write, so the fast partition
    // waits about that long, not for the write.
    Thread.sleep(100);
    long start = System.nanoTime();
    append(fast, Batches.batch("f0", 1, 1000)).durable().get(10, TimeUnit.SECONDS);
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(waitedMs < 2_000, "the fast partition waited " + waitedMs + " ms");
    for (int i = 1; i <= 20; i++) {
      append(fast, Batches.batch("f" + i, 1, 1000)).durable().get(10, TimeUnit.SECONDS);
      if (i % 5 == 0) {
        append(slow, Batches.batch("s" + i, 1, 1000)); // queued behind the stuck write
      }
    }
    assertEquals(21, fast.highWatermark());
    assertFalse(stuck.durable().isDone(), "the stuck write completed");
    assertEquals(before, slow.highWatermark());
    store.openPrefixGate();
    stuck.durable().get(10, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (slow.highWatermark() < before + 5 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(
        before + 5, slow.highWatermark(), "what queued behind the stuck write is written after it");
    assertEquals(before + 5, readAll(slow).size());
  }

  @Test
  void aStalledWriteOnTheFlusherThreadIsHandedOverAndNoFlusherThreadOutlivesClose()
      throws Exception {
    startEngine();
    PartitionLog slow = openTopic("s");
    for (int i = 0; i < GroupCommitFlusher.INLINE_AFTER_CYCLES; i++) {
      appendDurably(slow, Batches.batch("w" + i, 1, 1000));
    }
    store.closeGateFor("/topics/kafka/s/");
    AppendResult stuck = append(slow, Batches.batch("s", 1, 1000));
    Thread.sleep(200); // past STALL_MS
    List<String> during = flusherThreads();
    assertEquals(
        2,
        during.stream().filter("kelp-flusher"::equals).count(),
        "the stuck flusher thread and the one that took over: " + during);
    store.openPrefixGate();
    stuck.durable().get(10, TimeUnit.SECONDS);
    engine.close();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<String> left = flusherThreads();
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
      left = flusherThreads();
    }
    assertEquals(List.of(), left, "flusher threads still running after close");
  }

  private static List<String> flusherThreads() {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("kelp-flusher")) {
        names.add(t.getName());
      }
    }
    return names;
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
  void appendsThatNothingWaitsForAreHeldBackUntilAnAwaitedOneComes() throws Exception {
    engineConfig = lazyConfig(60_000, 4L << 20);
    PartitionLog log = open();
    List<AppendResult> results = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      results.add(appendUnawaited(log, Batches.batch("acks1-" + i, 1, 1000 + i)));
    }
    Thread.sleep(150);
    assertFalse(results.get(0).durable().isDone(), "flushed although nothing waits for it");
    assertEquals(0, store.appends.get());
    assertEquals(0, log.highWatermark());
    // an acks=all append ends the wait at once, and goes in the same write
    results.add(append(log, Batches.batch("acksall", 1, 2000)));
    for (AppendResult r : results) {
      r.durable().get(10, TimeUnit.SECONDS);
    }
    assertEquals(1, store.appends.get());
    assertEquals(4, log.highWatermark());
    assertEquals(4, readAll(log).size());
  }

  @Test
  void aFetchThatStartsWaitingEndsALazyWait() throws Exception {
    engineConfig = lazyConfig(60_000, 4L << 20);
    PartitionLog log = open();
    AppendResult r = appendUnawaited(log, Batches.batch("acks1", 1, 1000));
    Thread.sleep(100);
    assertFalse(r.durable().isDone(), "flushed although nothing waits for it");
    CompletableFuture<Void> moved = new CompletableFuture<>();
    // as a fetch waiting at the log's end registers
    try (AutoCloseable listening = log.onHighWatermark(() -> moved.complete(null))) {
      moved.get(10, TimeUnit.SECONDS);
    }
    r.durable().get(10, TimeUnit.SECONDS);
    assertEquals(1, log.highWatermark());
  }

  @Test
  void askingForWhatIsAppendedEndsALazyWaitAndCompletesOnceItIsWritten() throws Exception {
    engineConfig = lazyConfig(60_000, 4L << 20);
    PartitionLog log = open();
    assertTrue(log.appendedWritten().isDone(), "nothing appended, nothing to wait for");
    appendUnawaited(log, Batches.batch("acks1", 1, 1000));
    appendUnawaited(log, Batches.batch("acks1", 1, 1001));
    Thread.sleep(100);
    assertEquals(0, log.highWatermark(), "flushed although nothing waits for it");
    log.appendedWritten().get(10, TimeUnit.SECONDS);
    assertEquals(2, log.highWatermark());
    assertTrue(log.appendedWritten().isDone());
  }

  @Test
  void aLazyWaitEndsAfterItsDelayOrAtFlushMaxBytes() throws Exception {
    int batch = Batches.sized(1000, 1).readableBytes();
    engineConfig = lazyConfig(300, 3L * batch);
    PartitionLog log = open();
    long start = System.nanoTime();
    AppendResult alone = appendUnawaited(log, Batches.sized(1000, 1000));
    alone.durable().get(10, TimeUnit.SECONDS);
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(waitedMs >= 250, "flushed after " + waitedMs + " ms, before the lazy delay");
    long before = store.appends.get();
    List<AppendResult> results = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      results.add(appendUnawaited(log, Batches.sized(1000, 2000 + i)));
    }
    for (AppendResult r : results) {
      r.durable().get(10, TimeUnit.SECONDS);
    }
    assertEquals(before + 1, store.appends.get(), "the three pending batches in one write");
  }

  /**
   * One produce request at acks=all as the gateway sends it to the engine: told to the connection
   * before and after its appends, and answered once they are all durable.
   */
  private List<AppendResult> request(
      ProduceConnection connection, List<PartitionLog> logs, int seq) {
    connection.requestArrived();
    List<AppendResult> results = new ArrayList<>();
    for (PartitionLog log : logs) {
      results.add(append(log, Batches.sized(1000, seq)));
    }
    connection.requestAppended();
    CompletableFuture<Void> answered =
        CompletableFuture.allOf(
                results.stream().map(AppendResult::durable).toArray(CompletableFuture[]::new))
            .whenComplete((x, e) -> connection.requestAnswered());
    synchronized (this.answered) {
      this.answered.put(results, answered);
    }
    return results;
  }

  /**
   * Waits until the appends of {@code requests} are durable and each request was answered: as the
   * gateway answers a request only after telling its connection, a producer never sends its next
   * request before that (waiting for the appends alone would let the test run ahead of it).
   */
  private void awaitDurable(List<List<AppendResult>> requests) throws Exception {
    for (List<AppendResult> request : requests) {
      for (AppendResult r : request) {
        r.durable().get(10, TimeUnit.SECONDS);
      }
      CompletableFuture<Void> a;
      synchronized (answered) {
        a = answered.get(request);
      }
      if (a != null) {
        a.get(10, TimeUnit.SECONDS);
      }
    }
  }

  /** What each request's answer waits for, by its list of results (see {@link #request}). */
  private final Map<List<AppendResult>, CompletableFuture<Void>> answered = new IdentityHashMap<>();

  /**
   * A producer with {@code 1 + others} requests in flight: the first one's write hangs at the gate
   * while the others arrive, then it ends and the first is answered. Returns the others.
   */
  private List<List<AppendResult>> behindAHungWrite(
      ProduceConnection connection, PartitionLog log, int others, int seq) throws Exception {
    store.closeGate();
    List<AppendResult> first = request(connection, List.of(log), seq);
    // its write has taken what it writes and hangs at the gate
    store.awaitGated(1);
    List<List<AppendResult>> next = new ArrayList<>();
    for (int i = 1; i <= others; i++) {
      next.add(request(connection, List.of(log), seq + i));
    }
    store.openGate();
    awaitDurable(List.of(first));
    return next;
  }

  @Test
  void requestsAProducerKeepsInFlightAreGatheredIntoOneWrite() throws Exception {
    engineConfig = quietConfig(0, 4L << 20, 64 << 20, 1 << 20, 2, 60_000);
    PartitionLog log = open();
    ProduceConnection connection = engine.openProduceConnection();
    List<List<AppendResult>> next = behindAHungWrite(connection, log, 4, 1);
    long afterFirst = store.appends.get();
    // its answer lets the producer send a fifth: until then the four wait for it
    Thread.sleep(200);
    assertFalse(
        next.get(0).get(0).durable().isDone(), "four of five flushed without waiting for one more");
    next.add(request(connection, List.of(log), 20));
    awaitDurable(next);
    assertEquals(afterFirst + 1, store.appends.get(), "the five were not written together");
    assertEquals(6, readAll(log).size());
  }

  /**
   * A request carries several partitions, and a later one only those the producer had ready: the
   * held-back requests of a connection are written in one cycle, one write per partition.
   */
  @Test
  void aConnectionsRequestsOverSeveralPartitionsAreWrittenInOneCycle() throws Exception {
    engineConfig = quietConfig(0, 4L << 20, 64 << 20, 1 << 20, 2, 60_000);
    startEngine();
    PartitionLog a = openTopic("a");
    PartitionLog b = openTopic("b");
    ProduceConnection connection = engine.openProduceConnection();
    store.closeGate();
    List<AppendResult> first = request(connection, List.of(a, b), 1);
    // the first cycle's two writes have taken what they write and hang at the gate
    store.awaitGated(2);
    List<List<AppendResult>> next = new ArrayList<>();
    next.add(request(connection, List.of(a, b), 2));
    next.add(request(connection, List.of(b), 3));
    store.openGate();
    awaitDurable(List.of(first));
    long afterFirst = store.appends.get();
    Thread.sleep(200);
    assertFalse(next.get(0).get(0).durable().isDone(), "flushed without the third request");
    next.add(request(connection, List.of(a), 4));
    awaitDurable(next);
    assertEquals(afterFirst + 2, store.appends.get(), "not one write per partition");
    assertEquals(3, readAll(a).size());
    assertEquals(3, readAll(b).size());
  }

  @Test
  void requestsOneAtATimeAreNotHeldBackByGathering() throws Exception {
    engineConfig = quietConfig(0, 4L << 20, 64 << 20, 1 << 20, 2, 60_000);
    PartitionLog log = open();
    ProduceConnection connection = engine.openProduceConnection();
    long started = System.nanoTime();
    for (int i = 0; i < 20; i++) {
      awaitDurable(List.of(request(connection, List.of(log), i)));
    }
    // appends from no connection at all (a consumer group's log) are not held back either
    for (int i = 0; i < 20; i++) {
      append(log, Batches.sized(1000, 100 + i)).durable().get(10, TimeUnit.SECONDS);
    }
    assertTrue(
        System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10),
        "appends waited for others that never came");
    assertEquals(40, store.appends.get());
  }

  @Test
  void aGatheringCycleStartsAfterTheWaitAndQuietProducersAreNotWaitedFor() throws Exception {
    long waitMs = 2_000;
    engineConfig = quietConfig(0, 4L << 20, 64 << 20, 1 << 20, 2, waitMs);
    PartitionLog log = open();
    ProduceConnection connection = engine.openProduceConnection();
    List<List<AppendResult>> more = behindAHungWrite(connection, log, 4, 1);
    // the producer went quiet: the four wait for a fifth only as long as the wait allows
    long started = System.nanoTime();
    awaitDurable(more);
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertTrue(waitedMs >= waitMs - 100, "flushed after " + waitedMs + " ms, before the wait");
    // four were waiting when the wait ran out, so four at once are all it is expected to send:
    // with four in flight, once the first is answered and it sends one more, the four waiting
    // are written at once, without waiting for a fifth
    List<List<AppendResult>> four = behindAHungWrite(connection, log, 3, 20);
    started = System.nanoTime();
    four.add(request(connection, List.of(log), 24));
    awaitDurable(four);
    long fourMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertTrue(fourMs < waitMs / 2, "the four waited " + fourMs + " ms for a fifth");
    // a lone request after a quiet spell goes at once
    Thread.sleep(100);
    started = System.nanoTime();
    awaitDurable(List.of(request(connection, List.of(log), 30)));
    long loneMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertTrue(loneMs < waitMs / 2, "a lone request after a quiet spell waited " + loneMs + " ms");
    assertEquals(11, readAll(log).size());
  }

  @Test
  void aClosedConnectionIsNotWaitedFor() throws Exception {
    long waitMs = 5_000;
    engineConfig = quietConfig(0, 4L << 20, 64 << 20, 1 << 20, 2, waitMs);
    PartitionLog log = open();
    ProduceConnection connection = engine.openProduceConnection();
    List<List<AppendResult>> more = behindAHungWrite(connection, log, 2, 1);
    Thread.sleep(100);
    assertFalse(more.get(0).get(0).durable().isDone(), "flushed without waiting for a third");
    long started = System.nanoTime();
    connection.close();
    awaitDurable(more);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertTrue(ms < waitMs / 2, "waited " + ms + " ms for a closed connection");
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

  /** Partition 0 of a topic of its own, opened on the running engine. */
  private PartitionLog openTopic(String topic) throws Exception {
    return engine.open(
        new TopicPartition(topic, 0), "/topics/kafka/" + topic + "/v1/p0", LogConfig.defaults(), 1);
  }
}
