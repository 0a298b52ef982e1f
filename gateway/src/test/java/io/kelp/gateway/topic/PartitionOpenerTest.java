package io.kelp.gateway.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kelp.engine.TopicPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PartitionOpenerTest {
  private static List<TopicPartition> partitions(int n) {
    List<TopicPartition> all = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      all.add(new TopicPartition("t", p));
    }
    return all;
  }

  @Test
  void opensSeveralAtOnceAndReturnsThemInTheOrderAsked() throws IOException {
    // Each open waits until PARALLELISM opens have started: one after another, the first would
    // wait forever (and the test time out).
    CountDownLatch started = new CountDownLatch(PartitionOpener.PARALLELISM);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    List<String> opened =
        PartitionOpener.openEach(
            partitions(100),
            tp -> {
              threads.add(Thread.currentThread().getName());
              started.countDown();
              try {
                if (!started.await(10, TimeUnit.SECONDS)) {
                  throw new IOException("opens ran one after another");
                }
              } catch (InterruptedException e) {
                throw new IOException(e);
              }
              return tp.toString();
            });

    assertEquals(100, opened.size());
    for (int p = 0; p < 100; p++) {
      assertEquals(new TopicPartition("t", p).toString(), opened.get(p));
    }
    assertEquals(PartitionOpener.PARALLELISM, threads.size());
  }

  @Test
  void aFailureIsThrownOnlyOnceEveryOpenHasEndedWithTheOthersSuppressed() {
    AtomicInteger ended = new AtomicInteger();
    IOException thrown =
        assertThrows(
            IOException.class,
            () ->
                PartitionOpener.openEach(
                    partitions(40),
                    tp -> {
                      try {
                        Thread.sleep(5);
                        if (tp.partition() == 7 || tp.partition() == 30) {
                          throw new IOException("cannot open " + tp.partition());
                        }
                        if (tp.partition() == 12) {
                          throw new IllegalStateException("fenced " + tp.partition());
                        }
                        return tp.partition();
                      } catch (InterruptedException e) {
                        throw new IOException(e);
                      } finally {
                        ended.incrementAndGet();
                      }
                    }));
    assertEquals("cannot open 7", thrown.getMessage());
    assertEquals(
        List.of("fenced 12", "cannot open 30"),
        Arrays.stream(thrown.getSuppressed()).map(Throwable::getMessage).toList());
    assertEquals(40, ended.get());
  }

  @Test
  void oneOrNoPartitionOpensOnTheCallersThread() throws IOException {
    String caller = Thread.currentThread().getName();
    assertEquals(
        List.of(caller),
        PartitionOpener.openEach(partitions(1), tp -> Thread.currentThread().getName()));
    assertEquals(List.of(), PartitionOpener.openEach(List.of(), tp -> "never"));
  }
}
