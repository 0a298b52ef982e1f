package io.kelp.gateway.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group's lane (one thread here) with a request stuck in it, as on a store that does not answer.
 */
@Timeout(30)
class BoundedGroupRequestTest {
  private static final long BOUND_MS = 200;

  private final ExecutorService lane = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    lane.shutdownNow();
  }

  @Test
  void aRequestDoneInTimeGetsItsOwnAnswer() throws Exception {
    CompletableFuture<String> f =
        BoundedGroupRequest.run(lane, BOUND_MS, "test", "g", () -> "done", () -> "late");
    assertEquals("done", f.get(5, TimeUnit.SECONDS));
    Thread.sleep(2 * BOUND_MS);
    assertEquals("done", f.get(), "the deadline changes nothing once answered");
  }

  @Test
  void aStuckRequestIsAnsweredLateAndWhatItReturnsAfterIsDropped() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean finished = new AtomicBoolean();
    long start = System.nanoTime();
    CompletableFuture<String> stuck =
        BoundedGroupRequest.run(
            lane,
            BOUND_MS,
            "test",
            "g",
            () -> {
              release.await();
              finished.set(true);
              return "done";
            },
            () -> "late");
    assertEquals("late", stuck.get(5, TimeUnit.SECONDS));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(ms >= BOUND_MS, "answered after " + ms + " ms, before its bound");
    release.countDown();
    // The work goes on to its end (a write cannot be called back), its answer unused.
    CompletableFuture<String> next =
        BoundedGroupRequest.run(lane, BOUND_MS, "test", "g", () -> "next", () -> "late");
    assertEquals("next", next.get(5, TimeUnit.SECONDS));
    assertTrue(finished.get(), "the stuck request's work ran to its end");
    assertEquals("late", stuck.get());
  }

  @Test
  void aQueuedRequestAnsweredLateIsNeverRun() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<String> stuck =
        BoundedGroupRequest.run(
            lane,
            60_000,
            "test",
            "g",
            () -> {
              release.await();
              return "first";
            },
            () -> "late");
    AtomicBoolean ran = new AtomicBoolean();
    CompletableFuture<String> queued =
        BoundedGroupRequest.run(
            lane,
            BOUND_MS,
            "test",
            "g",
            () -> {
              ran.set(true);
              return "queued";
            },
            () -> "late");
    assertEquals("late", queued.get(5, TimeUnit.SECONDS));
    release.countDown();
    assertEquals("first", stuck.get(5, TimeUnit.SECONDS));
    // One thread, in order: once this runs, the queued request's turn has come and gone.
    assertEquals(
        "after",
        BoundedGroupRequest.run(lane, BOUND_MS, "test", "g", () -> "after", () -> "late")
            .get(5, TimeUnit.SECONDS));
    assertFalse(ran.get(), "a request its client was told failed is not applied later");
  }

  @Test
  void aFailureIsPassedOnAndARejectionToo() {
    CompletableFuture<String> failing =
        BoundedGroupRequest.run(
            lane,
            BOUND_MS,
            "test",
            "g",
            () -> {
              throw new IOException("store failed");
            },
            () -> "late");
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> failing.get(5, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof IOException);
    lane.shutdown();
    CompletableFuture<String> rejected =
        BoundedGroupRequest.run(lane, BOUND_MS, "test", "g", () -> "never", () -> "late");
    assertTrue(rejected.isCompletedExceptionally(), "a closed lane fails the request at once");
  }
}
