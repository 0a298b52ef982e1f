package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 while an idempotent acks=all producer sends: every acknowledged record is read back
 * exactly once, at the offset it was acknowledged with, in send order per partition. Records whose
 * send failed may or may not be there, but never twice.
 */
class CrashRecoveryTest {
  private static final int PARTITIONS = 3;
  private static final int KILLS = 4;
  private static final String TOPIC = "crash";

  /** What the producer was told about one record. */
  private record Ack(long offset) {}

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void acknowledgedRecordsSurviveRepeatedKills() throws Exception {
    long seed = Long.getLong("compat.crash.seed", System.nanoTime());
    Random random = new Random(seed);
    System.out.println(
        "CrashRecoveryTest seed " + seed + " (rerun with -Dcompat.crash.seed=" + seed + ")");
    try (KelpProcess kelp = KelpProcess.start("CrashRecoveryTest")) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Clients.createTopic(admin, TOPIC, PARTITIONS);
      }
      List<Map<Integer, Ack>> acked = new ArrayList<>();
      List<Map<Integer, Exception>> failed = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        acked.add(new ConcurrentSkipListMap<>());
        failed.add(new ConcurrentHashMap<>());
      }
      AtomicBoolean sending = new AtomicBoolean(true);
      AtomicInteger sent = new AtomicInteger();
      AtomicReference<Throwable> senderError = new AtomicReference<>();
      Map<String, Object> settings =
          Map.of(
              ProducerConfig.ACKS_CONFIG, "all",
              ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
              ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5,
              ProducerConfig.LINGER_MS_CONFIG, 2,
              ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
              ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
              ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50,
              ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500,
              ProducerConfig.MAX_BLOCK_MS_CONFIG, 120_000);
      try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap(), settings)) {
        Thread sender =
            new Thread(
                () -> {
                  int[] next = new int[PARTITIONS];
                  try {
                    while (sending.get()) {
                      for (int p = 0; p < PARTITIONS; p++) {
                        int partition = p;
                        int seq = next[p]++;
                        producer.send(
                            new ProducerRecord<>(
                                TOPIC, partition, "key-" + partition, partition + ":" + seq),
                            (metadata, error) -> {
                              if (error == null) {
                                acked.get(partition).put(seq, new Ack(metadata.offset()));
                              } else {
                                failed.get(partition).put(seq, error);
                              }
                            });
                        sent.incrementAndGet();
                      }
                      if (sent.get() % 30 == 0) {
                        Thread.sleep(1); // about 20k records a second at most
                      }
                    }
                  } catch (Throwable t) {
                    senderError.set(t);
                  }
                },
                "crash-test-sender");
        sender.start();
        for (int kill = 1; kill <= KILLS; kill++) {
          // every kill lands while records are flowing: first some acknowledgements, then a
          // random pause
          awaitProgress(acked, 500, senderError, "before kill " + kill);
          Thread.sleep(random.nextInt(2_000));
          int ackedBefore = totalAcked(acked);
          kelp.kill();
          System.out.println(
              "kill " + kill + ": " + ackedBefore + " acknowledged, " + sent.get() + " sent");
          Thread.sleep(random.nextInt(1_000));
          kelp.restart();
        }
        awaitProgress(acked, 3_000, senderError, "after the last restart");
        sending.set(false);
        sender.join(30_000);
        producer.flush();
      }
      if (senderError.get() != null) {
        throw new AssertionError("sender failed", senderError.get());
      }
      System.out.println(
          "sent "
              + sent.get()
              + ", acknowledged "
              + totalAcked(acked)
              + ", failed "
              + failed.stream().mapToInt(Map::size).sum());

      try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
          partitions.add(new TopicPartition(TOPIC, p));
        }
        Map<TopicPartition, List<ConsumerRecord<String, String>>> read =
            Clients.readAll(consumer, partitions);
        for (int p = 0; p < PARTITIONS; p++) {
          check(p, read.get(partitions.get(p)), acked.get(p), failed.get(p));
        }
      }
      kelp.stop();
    }
  }

  private static void check(
      int partition,
      List<ConsumerRecord<String, String>> records,
      Map<Integer, Ack> acked,
      Map<Integer, Exception> failed) {
    Map<Integer, Long> seen = new HashMap<>();
    int previous = -1;
    long expectedOffset = records.isEmpty() ? 0 : records.get(0).offset();
    assertEquals(0, expectedOffset, "partition " + partition + " starts at offset 0");
    for (ConsumerRecord<String, String> r : records) {
      assertEquals(expectedOffset++, r.offset(), "offsets are dense in partition " + partition);
      String[] parts = r.value().split(":");
      assertEquals(Integer.toString(partition), parts[0], "record in the partition it was sent to");
      int seq = Integer.parseInt(parts[1]);
      Long earlier = seen.put(seq, r.offset());
      if (earlier != null) {
        fail(
            "partition "
                + partition
                + ": record "
                + seq
                + " at offsets "
                + earlier
                + " and "
                + r.offset());
      }
      assertTrue(
          seq > previous,
          "partition "
              + partition
              + ": record "
              + seq
              + " after "
              + previous
              + " at offset "
              + r.offset());
      previous = seq;
      assertTrue(
          acked.containsKey(seq) || failed.containsKey(seq),
          "partition " + partition + ": record " + seq + " was never sent");
    }
    for (Map.Entry<Integer, Ack> e : acked.entrySet()) {
      Long offset = seen.get(e.getKey());
      if (offset == null) {
        fail(
            "partition "
                + partition
                + ": acknowledged record "
                + e.getKey()
                + " at offset "
                + e.getValue().offset()
                + " is lost");
      }
      assertEquals(
          e.getValue().offset(),
          offset.longValue(),
          "partition "
              + partition
              + ": record "
              + e.getKey()
              + " is at the offset it was acknowledged with");
    }
    System.out.println(
        "partition "
            + partition
            + ": "
            + records.size()
            + " records, "
            + acked.size()
            + " acknowledged, "
            + failed.size()
            + " failed");
  }

  /** Waits at most 60 s until {@code count} more records than now are acknowledged. */
  private static void awaitProgress(
      List<Map<Integer, Ack>> acked, int count, AtomicReference<Throwable> senderError, String when)
      throws InterruptedException {
    int target = totalAcked(acked) + count;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (totalAcked(acked) < target) {
      if (System.nanoTime() > deadline || senderError.get() != null) {
        fail(
            "producer made no progress "
                + when
                + ": "
                + totalAcked(acked)
                + " acknowledged"
                + (senderError.get() == null ? "" : ", " + senderError.get()));
      }
      Thread.sleep(20);
    }
  }

  private static int totalAcked(List<Map<Integer, Ack>> acked) {
    return acked.stream().mapToInt(Map::size).sum();
  }
}
