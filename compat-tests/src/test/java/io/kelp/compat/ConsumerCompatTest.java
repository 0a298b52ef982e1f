package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Java consumer with assign(): seek, earliest, latest and by timestamp. */
class ConsumerCompatTest {
  private static final long BASE_TIME = 1_700_000_000_000L;
  private static KelpProcess kelp;
  private static Admin admin;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("ConsumerCompatTest");
    admin = Clients.admin(kelp.bootstrap());
  }

  @AfterAll
  static void stopBroker() {
    if (kelp == null) {
      return; // it never started; the start failure is the report
    }
    try {
      if (admin != null) {
        admin.close();
      }
      kelp.stop();
    } finally {
      kelp.close();
    }
  }

  /** Sends {@code count} records to partition 0, value "v<i>", timestamp BASE_TIME + i s. */
  private static void produce(String topic, int from, int count) throws Exception {
    try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
      for (int i = from; i < from + count; i++) {
        producer.send(new ProducerRecord<>(topic, 0, BASE_TIME + i * 1000L, "k" + i, "v" + i));
      }
      producer.flush();
    }
  }

  /** Polls until {@code count} records arrived, failing after 30 s. */
  private static List<ConsumerRecord<String, String>> poll(
      KafkaConsumer<String, String> consumer, int count) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (out.size() < count) {
      if (System.nanoTime() > deadline) {
        fail("expected " + count + " records within 30 s, got " + out.size());
      }
      consumer.poll(Duration.ofMillis(200)).forEach(out::add);
    }
    return out;
  }

  @Test
  void assignAndSeekReadsFromTheChosenOffset() throws Exception {
    String topic = "assign-seek";
    Clients.createTopic(admin, topic, 1);
    produce(topic, 0, 100);
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, 40);
      List<ConsumerRecord<String, String>> read = poll(consumer, 60);
      assertEquals(60, read.size());
      for (int j = 0; j < 60; j++) {
        assertEquals(40 + j, read.get(j).offset());
        assertEquals("v" + (40 + j), read.get(j).value());
      }
      consumer.seek(tp, 97);
      List<ConsumerRecord<String, String>> tail = poll(consumer, 3);
      assertEquals(List.of("v97", "v98", "v99"), tail.stream().map(ConsumerRecord::value).toList());
      assertEquals(100, consumer.position(tp));
    }
  }

  @Test
  void earliestResetReadsTheWholePartition() throws Exception {
    String topic = "reset-earliest";
    Clients.createTopic(admin, topic, 1);
    produce(topic, 0, 50);
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<String, String> consumer =
        Clients.consumer(
            kelp.bootstrap(), Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"))) {
      consumer.assign(List.of(tp));
      List<ConsumerRecord<String, String>> read = poll(consumer, 50);
      assertEquals(0, read.get(0).offset());
      assertEquals("v0", read.get(0).value());
      assertEquals("v49", read.get(49).value());
      assertEquals(Map.of(tp, 0L), consumer.beginningOffsets(List.of(tp)));
      assertEquals(Map.of(tp, 50L), consumer.endOffsets(List.of(tp)));
    }
  }

  @Test
  void latestResetSeesOnlyRecordsSentAfterwards() throws Exception {
    String topic = "reset-latest";
    Clients.createTopic(admin, topic, 1);
    produce(topic, 0, 10);
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<String, String> consumer =
        Clients.consumer(
            kelp.bootstrap(), Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"))) {
      consumer.assign(List.of(tp));
      assertEquals(10, consumer.position(tp), "latest position before new records");
      assertEquals(0, consumer.poll(Duration.ofMillis(500)).count(), "nothing new yet");
      produce(topic, 10, 5);
      List<ConsumerRecord<String, String>> read = poll(consumer, 5);
      assertEquals(
          List.of(10L, 11L, 12L, 13L, 14L), read.stream().map(ConsumerRecord::offset).toList());
      assertEquals("v10", read.get(0).value());
    }
  }

  @Test
  void offsetsForTimesFindsTheFirstRecordAtOrAfterATimestamp() throws Exception {
    String topic = "offsets-for-times";
    Clients.createTopic(admin, topic, 1);
    produce(topic, 0, 60);
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
      OffsetAndTimestamp exact = consumer.offsetsForTimes(Map.of(tp, BASE_TIME + 30_000L)).get(tp);
      assertNotNull(exact, "offset for an existing timestamp");
      assertEquals(30, exact.offset());
      assertEquals(BASE_TIME + 30_000L, exact.timestamp());

      OffsetAndTimestamp between =
          consumer.offsetsForTimes(Map.of(tp, BASE_TIME + 25_500L)).get(tp);
      assertNotNull(between, "offset for a timestamp between two records");
      assertEquals(26, between.offset());
      assertEquals(BASE_TIME + 26_000L, between.timestamp());

      OffsetAndTimestamp before = consumer.offsetsForTimes(Map.of(tp, 0L)).get(tp);
      assertNotNull(before, "offset for a timestamp before every record");
      assertEquals(0, before.offset());

      assertNull(
          consumer.offsetsForTimes(Map.of(tp, BASE_TIME + 3_600_000L)).get(tp),
          "no offset for a timestamp after every record");

      consumer.assign(List.of(tp));
      consumer.seek(tp, between.offset());
      ConsumerRecord<String, String> first = poll(consumer, 1).get(0);
      assertEquals("v26", first.value());
      assertEquals(BASE_TIME + 26_000L, first.timestamp());
    }
  }
}
