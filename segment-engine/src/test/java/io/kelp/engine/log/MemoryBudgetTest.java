package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A flood of appends into a slow store stays within the memory budget when callers honour it. */
class MemoryBudgetTest extends LogTestSupport {

  @Test
  void pendingBytesStayUnderTheBudgetWhenTheCallerWaitsForRoom() throws Exception {
    long budget = 200_000;
    engineConfig = quietConfig(0, 1 << 20, budget, 1 << 20, 2);
    PartitionLog log = open();
    store.slowAppends(20);
    int batchSize = Batches.sized(2000, 1).readableBytes();
    int threads = 4;
    AtomicLong peak = new AtomicLong();
    AtomicLong waits = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<AppendResult> results = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 150; i++) {
                    while (engine.overMemoryBudget()) {
                      waits.incrementAndGet();
                      CountDownLatch room = new CountDownLatch(1);
                      engine.whenMemoryAvailable(room::countDown);
                      room.await(10, TimeUnit.SECONDS);
                    }
                    results.add(append(log, Batches.sized(2000, 1000 + i)));
                    peak.accumulateAndGet(engine.pendingBytes(), Math::max);
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    for (AppendResult r : results) {
      r.durable().get(30, TimeUnit.SECONDS);
    }
    assertTrue(waits.get() > 0, "the flood never reached the budget; the test proves nothing");
    assertTrue(
        peak.get() <= budget + (long) threads * batchSize,
        "pending bytes reached " + peak.get() + " with a budget of " + budget);
    assertEquals(0, engine.pendingBytes());
    assertEquals(600, log.highWatermark());
  }
}
