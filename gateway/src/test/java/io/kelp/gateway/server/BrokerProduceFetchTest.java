package io.kelp.gateway.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.gateway.testing.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Producing and consuming through kafka-clients against a real broker. */
class BrokerProduceFetchTest {
  @TempDir Path dir;
  private TestBroker kelp;
  private Admin admin;

  @BeforeEach
  void start() throws Exception {
    kelp = TestBroker.start(dir);
    admin = kelp.admin();
  }

  @AfterEach
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (kelp != null) {
      kelp.close();
    }
  }

  private void create(String topic, int partitions, Map<String, String> configs) throws Exception {
    admin
        .createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
        .all()
        .get();
  }

  /** Reads {@code count} records of {@code partitions} from their beginning. */
  private List<ConsumerRecord<String, String>> readAll(
      String topic, int partitions, int count, Map<String, Object> config) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    try (KafkaConsumer<String, String> c = kelp.consumer(config)) {
      c.assign(tps);
      c.seekToBeginning(tps);
      long deadline = System.currentTimeMillis() + 30000;
      while (out.size() < count && System.currentTimeMillis() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  @Test
  void idempotentAcksAllRecordsComeBackInOrderWithKeysAndHeaders() throws Exception {
    create("events", 3, Map.of());
    Map<Integer, List<Long>> sentOffsets = new HashMap<>();
    try (KafkaProducer<String, String> p =
        kelp.producer(
            Map.of(
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true))) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        ProducerRecord<String, String> r = new ProducerRecord<>("events", i % 3, "k" + i, "v" + i);
        r.headers().add(new RecordHeader("h", ("x" + i).getBytes(StandardCharsets.UTF_8)));
        sends.add(p.send(r));
      }
      for (Future<RecordMetadata> f : sends) {
        RecordMetadata m = f.get();
        sentOffsets.computeIfAbsent(m.partition(), k -> new ArrayList<>()).add(m.offset());
      }
    }
    for (List<Long> offsets : sentOffsets.values()) {
      for (int i = 0; i < offsets.size(); i++) {
        assertEquals(i, offsets.get(i), "dense offsets from 0");
      }
    }
    List<ConsumerRecord<String, String>> got = readAll("events", 3, 300, Map.of());
    assertEquals(300, got.size());
    Map<Integer, Integer> lastIndex = new HashMap<>();
    for (ConsumerRecord<String, String> r : got) {
      int i = Integer.parseInt(r.value().substring(1));
      assertEquals("k" + i, r.key());
      assertEquals(i % 3, r.partition());
      assertEquals(
          "x" + i, new String(r.headers().lastHeader("h").value(), StandardCharsets.UTF_8));
      assertTrue(lastIndex.getOrDefault(r.partition(), -1) < i, "in order per partition");
      lastIndex.put(r.partition(), i);
    }
  }

  /**
   * A produce request at acks=all tells the flusher when its appends are queued and when it is
   * answered: with a long gather wait, requests sent one at a time are never held for it (a request
   * whose appends the flusher believed still coming would hold every write for the wait).
   */
  @Test
  void acksAllRequestsOneAtATimeAreNotHeldByALongGatherWait() throws Exception {
    restartWith(Map.of("flush.gather.ms", "20000"));
    create("gathered", 2, Map.of());
    long started = System.nanoTime();
    try (KafkaProducer<String, String> p =
        kelp.producer(
            Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 0))) {
      for (int i = 0; i < 20; i++) {
        p.send(new ProducerRecord<>("gathered", i % 2, "k", "one-" + i)).get();
      }
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    assertTrue(ms < 15_000, "requests waited for a gather of 20 s: " + ms + " ms");
    assertEquals(20, readAll("gathered", 2, 20, Map.of()).size());
  }

  /**
   * acks=1 data that nothing waits for is held back for larger writes (here, with a wait of a
   * minute, until something waits): a consumer waiting at the end of the log, or an acks=all
   * produce, has it written at once.
   */
  @Test
  void acksOneDataIsWrittenLazilyUntilAConsumerOrAnAcksAllProduceWaits() throws Exception {
    TopicPartition tp = new TopicPartition("lazy", 0);
    Map<String, Object> acksOne = lazyBrokerAndTopic("lazy");
    try (KafkaProducer<String, String> one = kelp.producer(acksOne)) {
      assertEquals(
          List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), sendEach(one, "lazy", "first-", 10));
    }
    Thread.sleep(300);
    assertEquals(0, written("lazy"), "acks=1 data was written although nothing waited for it");
    long started = System.nanoTime();
    assertEquals(10, readAll("lazy", 1, 10, Map.of()).size());
    long ms = (System.nanoTime() - started) / 1_000_000;
    assertTrue(ms < 15_000, "a waiting consumer got the records after " + ms + " ms");
    assertEquals(10, latestOffset(tp));

    try (KafkaProducer<String, String> one = kelp.producer(acksOne);
        KafkaProducer<String, String> all =
            kelp.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
      sendEach(one, "lazy", "second-", 5);
      Thread.sleep(300);
      assertEquals(10, written("lazy"), "acks=1 data was written although nothing waited for it");
      started = System.nanoTime();
      assertEquals(15, all.send(new ProducerRecord<>("lazy", "acks-all")).get().offset());
      ms = (System.nanoTime() - started) / 1_000_000;
      assertTrue(ms < 15_000, "an acks=all produce waited " + ms + " ms");
    }
    assertEquals(16, written("lazy"), "the acks=1 data before it went with the acks=all write");
    assertEquals(16, readAll("lazy", 1, 16, Map.of()).size());
  }

  @Test
  void acksOneRecordsHeldForALargerWriteCountAtOnceWhereKafkaCountsThem() throws Exception {
    TopicPartition tp = new TopicPartition("counted", 0);
    Map<String, Object> acksOne = lazyBrokerAndTopic("counted");
    try (KafkaProducer<String, String> one = kelp.producer(acksOne)) {
      sendEach(one, "counted", "a-", 10);
      assertEquals(0, written("counted"), "the records should still be held back");
      long started = System.nanoTime();
      assertEquals(10, latestOffset(tp), "ListOffsets(latest) right after the acks");
      assertTrue((System.nanoTime() - started) / 1_000_000 < 15_000);
      assertEquals(
          9,
          admin
              .listOffsets(Map.of(tp, OffsetSpec.maxTimestamp()))
              .partitionResult(tp)
              .get()
              .offset());

      sendEach(one, "counted", "b-", 5);
      assertEquals(10, written("counted"));
      assertEquals(
          15,
          admin
              .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(15)))
              .lowWatermarks()
              .get(tp)
              .get()
              .lowWatermark(),
          "DeleteRecords up to the last acknowledged record");

      sendEach(one, "counted", "c-", 5);
      assertEquals(15, written("counted"));
    }
    // A consumer whose fetches never wait: its fetch at the end asks for the held records.
    List<String> got = new ArrayList<>();
    try (KafkaConsumer<String, String> c =
        kelp.consumer(Map.of("fetch.max.wait.ms", 0, "fetch.min.bytes", 1))) {
      c.assign(List.of(tp));
      c.seek(tp, 15);
      long deadline = System.currentTimeMillis() + 15_000;
      while (got.size() < 5 && System.currentTimeMillis() < deadline) {
        c.poll(Duration.ofMillis(100)).forEach(r -> got.add(r.value()));
      }
    }
    assertEquals(List.of("c-0", "c-1", "c-2", "c-3", "c-4"), got);
  }

  /**
   * Restarts the broker with a lazy wait of a minute for data nothing waits for, creates {@code
   * topic} with one partition, and returns the settings of an acks=1 producer.
   */
  private Map<String, Object> lazyBrokerAndTopic(String topic) throws Exception {
    restartWith(Map.of("flush.lazy.ms", "60000"));
    create(topic, 1, Map.of());
    return Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
  }

  /**
   * Sends {@code prefix + i} for i below {@code count}, each once the one before is acknowledged,
   * and returns their offsets.
   */
  private static List<Long> sendEach(
      KafkaProducer<String, String> producer, String topic, String prefix, int count)
      throws Exception {
    List<Long> offsets = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      offsets.add(producer.send(new ProducerRecord<>(topic, prefix + i)).get().offset());
    }
    return offsets;
  }

  /** The end of what is written of {@code topic}'s partition 0 (its high watermark). */
  private long written(String topic) {
    return kelp.broker().services().topics().get(topic).orElseThrow().log(0).highWatermark();
  }

  /** Starts the broker again over the same data with {@code settings}, and a new admin client. */
  private void restartWith(Map<String, String> settings) throws Exception {
    kelp.close();
    kelp = TestBroker.start(dir, settings);
    admin.close();
    admin = kelp.admin();
  }

  private long latestOffset(TopicPartition tp) throws Exception {
    return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
  }

  @Test
  void everyCompressionCodecRoundTrips() throws Exception {
    for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
      String topic = "codec-" + codec;
      create(topic, 1, Map.of());
      try (KafkaProducer<String, String> p =
          kelp.producer(
              Map.of(
                  ProducerConfig.COMPRESSION_TYPE_CONFIG,
                  codec,
                  ProducerConfig.LINGER_MS_CONFIG,
                  20))) {
        for (int i = 0; i < 200; i++) {
          p.send(new ProducerRecord<>(topic, "k" + i, "value-" + i + "-" + "x".repeat(100)));
        }
        p.flush();
      }
      List<ConsumerRecord<String, String>> got = readAll(topic, 1, 200, Map.of());
      assertEquals(200, got.size(), codec);
      for (int i = 0; i < 200; i++) {
        assertEquals(i, got.get(i).offset(), codec);
        assertEquals("value-" + i + "-" + "x".repeat(100), got.get(i).value(), codec);
      }
    }
  }

  @Test
  void acksOneAndAcksZeroAreStoredToo() throws Exception {
    create("acks", 1, Map.of());
    try (KafkaProducer<String, String> one =
            kelp.producer(
                Map.of(
                    ProducerConfig.ACKS_CONFIG,
                    "1",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    false));
        KafkaProducer<String, String> zero =
            kelp.producer(
                Map.of(
                    ProducerConfig.ACKS_CONFIG,
                    "0",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    false))) {
      for (int i = 0; i < 10; i++) {
        assertEquals(i, one.send(new ProducerRecord<>("acks", "a" + i)).get().offset());
      }
      for (int i = 0; i < 10; i++) {
        zero.send(new ProducerRecord<>("acks", "z" + i)).get();
      }
    }
    assertEquals(20, readAll("acks", 1, 20, Map.of()).size());
  }

  @Test
  void aFetchInsideABatchReturnsTheRecordsFromThatOffset() throws Exception {
    create("batched", 1, Map.of());
    try (KafkaProducer<String, String> p =
        kelp.producer(
            Map.of(
                ProducerConfig.LINGER_MS_CONFIG, 500, ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20))) {
      for (int i = 0; i < 10; i++) {
        p.send(new ProducerRecord<>("batched", "r" + i));
      }
      p.flush();
    }
    TopicPartition tp = new TopicPartition("batched", 0);
    try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
      c.assign(List.of(tp));
      c.seek(tp, 5);
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 20000;
      while (got.size() < 5 && System.currentTimeMillis() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
      assertEquals(5, got.size());
      assertEquals(5, got.get(0).offset());
      assertEquals("r5", got.get(0).value());
    }
  }

  @Test
  void offsetsEarliestLatestByTimestampAndMaxTimestamp() throws Exception {
    create("times", 1, Map.of());
    long base = System.currentTimeMillis() - 60_000;
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      for (int i = 0; i < 10; i++) {
        long ts = i == 7 ? base + 100_000 : base + i * 1000L;
        p.send(new ProducerRecord<>("times", 0, ts, "k", "v" + i)).get();
      }
    }
    TopicPartition tp = new TopicPartition("times", 0);
    try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
      assertEquals(0L, c.beginningOffsets(List.of(tp)).get(tp));
      assertEquals(10L, c.endOffsets(List.of(tp)).get(tp));
      OffsetAndTimestamp at = c.offsetsForTimes(Map.of(tp, base + 2500)).get(tp);
      assertEquals(3, at.offset());
      assertEquals(base + 3000, at.timestamp());
      assertEquals(null, c.offsetsForTimes(Map.of(tp, base + 200_000)).get(tp));
    }
    var max = admin.listOffsets(Map.of(tp, OffsetSpec.maxTimestamp())).partitionResult(tp).get();
    assertEquals(7, max.offset());
    assertEquals(base + 100_000, max.timestamp());
    assertEquals(
        10, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset());
  }

  @Test
  void deleteRecordsMovesTheLogStart() throws Exception {
    create("trim", 1, Map.of());
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      for (int i = 0; i < 10; i++) {
        p.send(new ProducerRecord<>("trim", "v" + i)).get();
      }
    }
    TopicPartition tp = new TopicPartition("trim", 0);
    assertEquals(
        4,
        admin
            .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4)))
            .lowWatermarks()
            .get(tp)
            .get()
            .lowWatermark());
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(11))).all().get());
    assertInstanceOf(org.apache.kafka.common.errors.OffsetOutOfRangeException.class, e.getCause());
    List<ConsumerRecord<String, String>> got = readAll("trim", 1, 6, Map.of());
    assertEquals(6, got.size());
    assertEquals(4, got.get(0).offset());
    assertEquals(
        4, admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get().offset());
  }

  @Test
  void aWaitingFetchIsAnsweredWhenRecordsArrive() throws Exception {
    create("poll", 1, Map.of());
    TopicPartition tp = new TopicPartition("poll", 0);
    try (KafkaConsumer<String, String> c =
        kelp.consumer(Map.of("fetch.max.wait.ms", 20000, "fetch.min.bytes", 1))) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      c.poll(Duration.ofMillis(100));
      Thread producer =
          new Thread(
              () -> {
                try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
                  Thread.sleep(300);
                  p.send(new ProducerRecord<>("poll", "late")).get();
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      producer.start();
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 30000;
      while (got.isEmpty() && System.currentTimeMillis() < deadline) {
        c.poll(Duration.ofSeconds(5)).forEach(got::add);
      }
      producer.join();
      assertEquals("late", got.get(0).value());
    }
  }

  @Test
  void topicLimitsAreEnforced() throws Exception {
    create("small", 1, Map.of("max.message.bytes", "2000"));
    create("recent", 1, Map.of("message.timestamp.after.max.ms", "1000"));
    try (KafkaProducer<String, String> p =
        kelp.producer(
            Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                false,
                ProducerConfig.RETRIES_CONFIG,
                0))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> p.send(new ProducerRecord<>("small", "x".repeat(5000))).get());
      assertInstanceOf(RecordTooLargeException.class, e.getCause());
      long future = System.currentTimeMillis() + 3_600_000;
      e =
          assertThrows(
              ExecutionException.class,
              () -> p.send(new ProducerRecord<>("recent", 0, future, "k", "v")).get());
      assertInstanceOf(InvalidTimestampException.class, e.getCause());
      assertEquals(
          0, p.send(new ProducerRecord<>("small", "fits")).get().offset(), "the topic still works");
    }
  }

  @Test
  void logAppendTimeTopicsStampBrokerTime() throws Exception {
    create("stamped", 1, Map.of("message.timestamp.type", "LogAppendTime"));
    long before = System.currentTimeMillis();
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      RecordMetadata m = p.send(new ProducerRecord<>("stamped", 0, 1L, "k", "v")).get();
      assertTrue(m.timestamp() >= before, "the broker's append time is acknowledged");
    }
    ConsumerRecord<String, String> r = readAll("stamped", 1, 1, Map.of()).get(0);
    assertEquals(TimestampType.LOG_APPEND_TIME, r.timestampType());
    assertNotEquals(1L, r.timestamp());
  }

  @Test
  void recordsSurviveARestartAndTheLeaderEpochMovesOn() throws Exception {
    create("kept", 2, Map.of());
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      for (int i = 0; i < 20; i++) {
        p.send(new ProducerRecord<>("kept", i % 2, "k", "v" + i)).get();
      }
    }
    int epoch = kelp.broker().services().topics().get("kept").orElseThrow().log(0).leaderEpoch();
    admin.close();
    kelp.restart();
    admin = kelp.admin();
    assertTrue(
        kelp.broker().services().topics().get("kept").orElseThrow().log(0).leaderEpoch() > epoch);
    assertEquals(20, readAll("kept", 2, 20, Map.of()).size());
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      assertEquals(10, p.send(new ProducerRecord<>("kept", 0, "k", "after")).get().offset());
    }
  }

  @Test
  void readCommittedConsumersReadEverythingWithoutTransactions() throws Exception {
    create("rc", 1, Map.of());
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      for (int i = 0; i < 5; i++) {
        p.send(new ProducerRecord<>("rc", "v" + i)).get();
      }
    }
    assertEquals(5, readAll("rc", 1, 5, Map.of("isolation.level", "read_committed")).size());
  }
}
