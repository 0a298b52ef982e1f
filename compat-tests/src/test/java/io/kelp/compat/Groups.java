package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/** What the consumer group tests share: group settings, waiting, numbered records, child JVMs. */
final class Groups {
  private Groups() {}

  /** Short enough that a crashed classic member is noticed within seconds. */
  static final int SESSION_TIMEOUT_MS = 6_000;

  /**
   * Settings of a classic-protocol group member: a short session so that crashes are detected
   * quickly, and a rebalance timeout (max.poll.interval.ms) that bounds how long a rebalance can
   * wait for a member that is slow to rejoin.
   */
  static Map<String, Object> classic(String group) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
    config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
    config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 30_000);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
    return config;
  }

  /**
   * Settings of a KIP-848 group member. Session timeout and heartbeat interval belong to the broker
   * in this protocol (the client rejects them).
   */
  static Map<String, Object> consumerProtocol(String group) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
    return config;
  }

  /** A group member of this JVM with the given settings (see {@link #classic}). */
  static KafkaConsumer<String, String> member(String bootstrap, Map<String, Object> config) {
    return Clients.consumer(bootstrap, config);
  }

  /**
   * Polls {@code condition} every 50 ms and fails after {@code timeout}, saying what was awaited
   * and the state {@code state} describes.
   */
  static void await(
      Duration timeout, String what, BooleanSupplier condition, Supplier<String> state) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("not within " + timeout.toSeconds() + " s: " + what + "; " + state.get());
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** Polls {@code consumer} (keeping it in its group) until {@code condition} holds. */
  static void pollUntil(
      KafkaConsumer<String, String> consumer, Duration timeout, String what, BooleanSupplier cond) {
    pollUntil(consumer, timeout, what, cond, records -> {});
  }

  /**
   * Polls {@code consumer} until {@code condition} holds, handing every batch of records to {@code
   * handler}.
   */
  static void pollUntil(
      KafkaConsumer<String, String> consumer,
      Duration timeout,
      String what,
      BooleanSupplier condition,
      Consumer<ConsumerRecords<String, String>> handler) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("not within " + timeout.toSeconds() + " s: " + what);
      }
      handler.accept(consumer.poll(Duration.ofMillis(100)));
    }
  }

  /**
   * Writes {@code perPartition} records to every partition of {@code topic}, valued {@code
   * "<partition>:<n>"} so that record n of a partition is at offset n of an empty topic.
   */
  static void produceNumbered(String bootstrap, String topic, int partitions, int perPartition)
      throws Exception {
    try (KafkaProducer<String, String> producer = Clients.producer(bootstrap)) {
      for (int n = 0; n < perPartition; n++) {
        for (int p = 0; p < partitions; p++) {
          producer.send(new ProducerRecord<>(topic, p, "k" + n, p + ":" + n));
        }
      }
      producer.flush();
    }
  }

  /**
   * Creates a topic and waits until every partition answers a ListOffsets, so that the first
   * records sent find their partition ready: Apache Kafka answers a Produce that arrives before the
   * partition's log exists with NOT_LEADER_OR_FOLLOWER, and an idempotent producer whose first
   * batch fails that way while later ones succeed can stall on OUT_OF_ORDER_SEQUENCE_NUMBER.
   */
  static void createTopic(Admin admin, String topic, int partitions) {
    Clients.createTopic(admin, topic, partitions);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions(topic, partitions).forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    Clients.get(admin.listOffsets(latest).all());
  }

  /** The group's committed offsets by partition number, read with the admin client. */
  static Map<Integer, Long> committed(Admin admin, String group) {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        Clients.get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    Map<Integer, Long> out = new HashMap<>();
    offsets.forEach((tp, om) -> out.put(tp.partition(), om == null ? null : om.offset()));
    return out;
  }

  /** The partitions 0..n-1 of a topic. */
  static List<TopicPartition> partitions(String topic, int n) {
    List<TopicPartition> out = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      out.add(new TopicPartition(topic, p));
    }
    return out;
  }

  /**
   * The command that runs {@code mainClass} in a new JVM with this JVM's class path and the quiet
   * client logging of the tests.
   */
  static List<String> javaCommand(String mainClass, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    cmd.add("-Dlog4j2.configurationFile=compat-clients-log4j2.xml");
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Sleeps without a checked exception. */
  static void sleep(Duration duration) {
    try {
      TimeUnit.MILLISECONDS.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
