package io.kelp.gateway.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class GroupLanesTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(2);
  private final GroupLanes lanes = new GroupLanes(pool);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void aGroupStuckInARequestHoldsOneThreadAndOtherGroupsGoOn() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    CompletableFuture<String> stuck =
        Blocking.run(
            lanes.lane("slow"),
            () -> {
              release.await();
              ran.add("slow-1");
              return "slow-1";
            });
    // More requests of the slow group than the pool has threads: they wait in its lane.
    List<CompletableFuture<String>> queued =
        List.of(
            Blocking.run(lanes.lane("slow"), () -> add(ran, "slow-2")),
            Blocking.run(lanes.lane("slow"), () -> add(ran, "slow-3")),
            Blocking.run(lanes.lane("slow"), () -> add(ran, "slow-4")));
    for (int i = 0; i < 20; i++) {
      String id = "other-" + i;
      assertEquals(id, Blocking.run(lanes.lane(id), () -> id).get(5, TimeUnit.SECONDS));
    }
    assertEquals(List.of(), ran, "the slow group's requests while its first one waits");
    release.countDown();
    assertEquals("slow-1", stuck.get(5, TimeUnit.SECONDS));
    for (CompletableFuture<String> f : queued) {
      f.get(5, TimeUnit.SECONDS);
    }
    assertEquals(List.of("slow-1", "slow-2", "slow-3", "slow-4"), ran, "one group, in order");
    awaitNoLanes();
  }

  @Test
  void aFailingRequestDoesNotStopItsLane() throws Exception {
    CompletableFuture<String> failed =
        Blocking.run(
            lanes.lane("g"),
            () -> {
              throw new IllegalStateException("boom");
            });
    CompletableFuture<String> next = Blocking.run(lanes.lane("g"), () -> "next");
    assertEquals("next", next.get(5, TimeUnit.SECONDS));
    assertTrue(failed.isCompletedExceptionally());
    awaitNoLanes();
  }

  @Test
  void aClosedPoolFailsTheRequestAndLeavesNoLane() {
    pool.shutdown();
    CompletableFuture<String> f = Blocking.run(lanes.lane("g"), () -> "never");
    assertTrue(f.isCompletedExceptionally());
    assertEquals(0, lanes.busyLanes());
  }

  /** A lane is dropped just after its last request completes its future. */
  private void awaitNoLanes() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (lanes.busyLanes() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(0, lanes.busyLanes(), "lanes are dropped once empty");
  }

  private static String add(List<String> ran, String what) {
    ran.add(what);
    return what;
  }
}
