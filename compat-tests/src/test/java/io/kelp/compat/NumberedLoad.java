package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * An idempotent acks=all producer sending numbered records ({@code <partition>:<n>}) round-robin to
 * every partition of a topic from a thread of its own, as fast as about 20k records a second and
 * with at most {@value #MAX_UNANSWERED} records unanswered, while a test breaks something. It
 * remembers which records were acknowledged at which offset and which failed, and checks what a
 * consumer reads back afterwards: every acknowledged record exactly once, at the offset it was
 * acknowledged with, in send order per partition; a record whose send failed may be there or not,
 * but never twice.
 */
final class NumberedLoad implements AutoCloseable {
  /**
   * While the broker cannot store anything the sender waits rather than queueing up a million
   * records, which would take longer to deliver and to read back than the test takes otherwise.
   */
  private static final int MAX_UNANSWERED = 20_000;

  /**
   * Producer settings that ride out a broker that is gone for a few seconds: short request timeouts
   * and reconnect backoffs, a delivery timeout of {@code deliveryTimeoutMs}.
   */
  static Map<String, Object> resilientProducer(int deliveryTimeoutMs) {
    return Map.of(
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5,
        ProducerConfig.LINGER_MS_CONFIG, 2,
        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryTimeoutMs,
        ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50,
        ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500,
        ProducerConfig.MAX_BLOCK_MS_CONFIG, deliveryTimeoutMs);
  }

  /** What the producer was told about one record. */
  private record Ack(long offset) {}

  private final String topic;
  private final int partitions;
  private final KafkaProducer<String, String> producer;
  private final List<Map<Integer, Ack>> acked = new ArrayList<>();
  private final List<Map<Integer, Exception>> failed = new ArrayList<>();
  private final AtomicBoolean sending = new AtomicBoolean(true);
  private final AtomicInteger sent = new AtomicInteger();
  private final Semaphore unanswered = new Semaphore(MAX_UNANSWERED);
  private final AtomicReference<Throwable> senderError = new AtomicReference<>();
  private final Thread sender;

  /** Starts sending at once. */
  NumberedLoad(String bootstrap, String topic, int partitions, Map<String, Object> settings) {
    this.topic = topic;
    this.partitions = partitions;
    for (int p = 0; p < partitions; p++) {
      acked.add(new ConcurrentSkipListMap<>());
      failed.add(new ConcurrentHashMap<>());
    }
    producer = Clients.producer(bootstrap, settings);
    sender = new Thread(this::send, "numbered-load-" + topic);
    sender.start();
  }

  private void send() {
    int[] next = new int[partitions];
    try {
      while (sending.get()) {
        for (int p = 0; p < partitions; p++) {
          int partition = p;
          while (!unanswered.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            if (!sending.get()) {
              return;
            }
          }
          int seq = next[p]++;
          producer.send(
              new ProducerRecord<>(topic, partition, "key-" + partition, partition + ":" + seq),
              (metadata, error) -> {
                if (error == null) {
                  acked.get(partition).put(seq, new Ack(metadata.offset()));
                } else {
                  failed.get(partition).put(seq, error);
                }
                unanswered.release();
              });
          sent.incrementAndGet();
        }
        if (sent.get() % 30 == 0) {
          Thread.sleep(1);
        }
      }
    } catch (Throwable t) {
      senderError.set(t);
    }
  }

  /** Waits at most 60 s until {@code count} more records than now are acknowledged. */
  void awaitProgress(int count, String when) throws InterruptedException {
    int target = totalAcked() + count;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (totalAcked() < target) {
      if (System.nanoTime() > deadline || senderError.get() != null) {
        fail(
            "producer made no progress "
                + when
                + ": "
                + totalAcked()
                + " acknowledged, "
                + totalFailed()
                + " failed"
                + (senderError.get() == null ? "" : ", " + senderError.get())
                + firstFailure());
      }
      Thread.sleep(20);
    }
  }

  /** Stops sending and waits until every record sent has been acknowledged or has failed. */
  void finish() throws InterruptedException {
    sending.set(false);
    sender.join(30_000);
    producer.flush();
    if (senderError.get() != null) {
      throw new AssertionError("sender failed", senderError.get());
    }
    System.out.println(
        topic
            + ": sent "
            + sent.get()
            + ", acknowledged "
            + totalAcked()
            + ", failed "
            + totalFailed()
            + firstFailure());
  }

  int totalAcked() {
    return acked.stream().mapToInt(Map::size).sum();
  }

  int sent() {
    return sent.get();
  }

  private int totalFailed() {
    return failed.stream().mapToInt(Map::size).sum();
  }

  private String firstFailure() {
    return failed.stream()
        .flatMap(m -> m.values().stream())
        .findFirst()
        .map(e -> "; a failure: " + e)
        .orElse("");
  }

  /** Reads the whole topic with {@code consumer} and checks it against what was acknowledged. */
  void verify(KafkaConsumer<String, String> consumer) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    Map<TopicPartition, List<ConsumerRecord<String, String>>> read = Clients.readAll(consumer, tps);
    for (int p = 0; p < partitions; p++) {
      check(p, read.get(tps.get(p)), acked.get(p), failed.get(p));
    }
  }

  @Override
  public void close() throws InterruptedException {
    sending.set(false);
    sender.join(30_000);
    producer.close();
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
}
