package io.kelp.seaweed;

import static io.kelp.seaweed.StoreText.readAll;
import static io.kelp.seaweed.StoreText.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.store.ConcurrentWrites;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The appends of writers that run at once (a group commit cycle) go to a real filer in one batch of
 * transactions, each still fenced and answered on its own.
 */
class SeaweedTransactionBatchTest {
  private static final AtomicInteger ROOTS = new AtomicInteger();
  private static WeedProcess weed;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<SeaweedObjectStore> stores = new ArrayList<>();
  private final String root = "/batch-" + ROOTS.incrementAndGet();

  @BeforeAll
  static void startWeed() throws Exception {
    weed = WeedProcess.start();
  }

  @AfterAll
  static void stopWeed() throws Exception {
    if (weed != null) {
      weed.close();
    }
  }

  @AfterEach
  void closeStores() {
    threads.shutdownNow();
    stores.forEach(SeaweedObjectStore::close);
  }

  private SeaweedObjectStore store(Duration linger) {
    SeaweedObjectStore store =
        new SeaweedObjectStore(
            weed.filerAddress(), "", "", Duration.ofSeconds(20), PooledByteBufAllocator.DEFAULT);
    store.batcher().lingerFor(linger);
    // Transactions per append: the path of volume servers that check write tokens.
    store.useReservations(false);
    stores.add(store);
    return store;
  }

  /** Fenced partition directories claimed by {@code store}, each with a first append in it. */
  private List<Fence> partitions(SeaweedObjectStore store, int count) throws Exception {
    List<Fence> fences = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String dir = root + "/p" + i;
      store.claim(dir, 1);
      Fence fence = new Fence(dir, 1);
      store.append(dir + "/seg.log", text("first " + i + ";"), fence);
      fences.add(fence);
    }
    return fences;
  }

  /** Runs {@code append} as a writer of {@code writes} on a thread of its own. */
  private CompletableFuture<Void> writer(ConcurrentWrites writes, ThrowingRunnable append) {
    return CompletableFuture.runAsync(
        () -> {
          writes.started();
          try {
            append.run();
          } catch (Exception e) {
            throw new CompletionException(e);
          } finally {
            writes.done();
          }
        },
        threads);
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  /**
   * Appends "second i;" to each partition i, each from a writer of its own, all announced at once
   * as a group commit cycle announces them.
   */
  private List<CompletableFuture<Void>> appendSecondsAtOnce(
      SeaweedObjectStore store, List<Fence> fences) {
    ConcurrentWrites writes = store.concurrentWrites();
    writes.expect(fences.size());
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (int i = 0; i < fences.size(); i++) {
      Fence fence = fences.get(i);
      String text = "second " + i + ";";
      done.add(
          writer(writes, () -> store.append(fence.directory() + "/seg.log", text(text), fence)));
    }
    return done;
  }

  @Test
  void appendsOfSixWritersRunningAtOnceGoInOneRequestAndEachLandsInItsObject() throws Exception {
    SeaweedObjectStore store = store(Duration.ofSeconds(30));
    List<Fence> fences = partitions(store, 6);
    long requests = store.writerTransactionRequests();
    long transactions = store.writerTransactions();
    List<CompletableFuture<Void>> done = appendSecondsAtOnce(store, fences);
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
    assertEquals(6, store.writerTransactions() - transactions);
    assertEquals(1, store.writerTransactionRequests() - requests, "one request for all six");
    for (int i = 0; i < 6; i++) {
      assertEquals(
          "first " + i + ";second " + i + ";",
          readAll(store, fences.get(i).directory() + "/seg.log"));
    }
  }

  @Test
  void aFencedOutWriterFailsInItsBatchWhileTheOthersLand() throws Exception {
    SeaweedObjectStore store = store(Duration.ofSeconds(30));
    List<Fence> fences = partitions(store, 3);
    // Another broker takes partition 1 over.
    store(Duration.ofSeconds(30)).claim(fences.get(1).directory(), 2);
    long requests = store.writerTransactionRequests();
    List<CompletableFuture<Void>> done = appendSecondsAtOnce(store, fences);
    for (int i = 0; i < 3; i++) {
      Throwable failure = null;
      try {
        done.get(i).get(20, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        failure = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
      }
      if (i == 1) {
        assertInstanceOf(FencedException.class, failure, "the writer whose fence was lost");
      } else {
        assertNull(failure, "writer " + i);
      }
    }
    assertEquals(1, store.writerTransactionRequests() - requests, "the three went together");
    assertEquals("first 0;second 0;", readAll(store, fences.get(0).directory() + "/seg.log"));
    assertEquals("first 1;", readAll(store, fences.get(1).directory() + "/seg.log"));
    assertEquals("first 2;second 2;", readAll(store, fences.get(2).directory() + "/seg.log"));
  }

  @Test
  void aWriterThatEndsWithoutAnAppendLetsTheOthersGoAtOnce() throws Exception {
    SeaweedObjectStore store = store(Duration.ofSeconds(60));
    Fence fence = partitions(store, 1).get(0);
    ConcurrentWrites writes = store.concurrentWrites();
    writes.expect(2);
    long start = System.nanoTime();
    CompletableFuture<Void> appending =
        writer(writes, () -> store.append(fence.directory() + "/seg.log", text("more;"), fence));
    Thread.sleep(200); // the append waits for the second writer
    writer(writes, () -> {}).get(10, TimeUnit.SECONDS);
    appending.get(20, TimeUnit.SECONDS);
    assertTrue(
        System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30),
        "sent when the other writer ended, not after the minute's wait");
    assertEquals("first 0;more;", readAll(store, fence.directory() + "/seg.log"));
  }

  @Test
  void aWriterAnnouncedButNeverStartedHoldsTheOthersNoLongerThanTheWait() throws Exception {
    SeaweedObjectStore store = store(Duration.ofMillis(300));
    Fence fence = partitions(store, 1).get(0);
    ConcurrentWrites writes = store.concurrentWrites();
    writes.expect(2);
    long start = System.nanoTime();
    writer(writes, () -> store.append(fence.directory() + "/seg.log", text("a;"), fence))
        .get(20, TimeUnit.SECONDS);
    long waited = System.nanoTime() - start;
    assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(300), "waited for the other: " + waited);
    // The writer that never came is no longer waited for.
    store.batcher().lingerFor(Duration.ofSeconds(60));
    writes.expect(0);
    start = System.nanoTime();
    writer(writes, () -> store.append(fence.directory() + "/seg.log", text("b;"), fence))
        .get(20, TimeUnit.SECONDS);
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "a lone writer goes");
    assertEquals("first 0;a;b;", readAll(store, fence.directory() + "/seg.log"));
  }

  @Test
  void appendsFromThreadsThatAreNotWritersAreNotHeldBack() throws Exception {
    SeaweedObjectStore store = store(Duration.ofSeconds(60));
    Fence fence = partitions(store, 1).get(0);
    store.concurrentWrites().expect(3); // writers that never come
    long start = System.nanoTime();
    store.append(fence.directory() + "/seg.log", text("direct;"), fence);
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30));
    assertArrayEquals(
        "first 0;direct;".getBytes(StandardCharsets.UTF_8),
        readAll(store, fence.directory() + "/seg.log").getBytes(StandardCharsets.UTF_8));
  }
}
