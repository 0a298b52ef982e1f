package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Java producer: idempotent acks=all sends and every compression codec, read back intact. */
class ProducerCompatTest {
  private static KelpProcess kelp;
  private static Admin admin;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("ProducerCompatTest");
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

  @Test
  void idempotentAcksAllSendsGetDenseOffsetsAndReadBackExactly() throws Exception {
    String topic = "idempotent-acks-all";
    Clients.createTopic(admin, topic, 3);
    List<ProducerRecord<String, String>> sent = new ArrayList<>();
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        Clients.producer(
            kelp.bootstrap(),
            Map.of(
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true))) {
      for (int i = 0; i < 300; i++) {
        List<Header> headers =
            List.of(
                new RecordHeader("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                new RecordHeader("empty", new byte[0]));
        ProducerRecord<String, String> record =
            new ProducerRecord<>(
                topic, i % 3, 1_700_000_000_000L + i, "key-" + i, "value-" + i, headers);
        sent.add(record);
        acks.add(producer.send(record));
      }
      producer.flush();
    }
    Map<Integer, List<Long>> offsets = new HashMap<>();
    for (Future<RecordMetadata> ack : acks) {
      RecordMetadata m = ack.get();
      offsets.computeIfAbsent(m.partition(), p -> new ArrayList<>()).add(m.offset());
    }
    for (int p = 0; p < 3; p++) {
      assertEquals(
          IntStream.range(0, 100).mapToObj(Long::valueOf).toList(),
          offsets.get(p),
          "acknowledged offsets of partition " + p + " are dense from 0");
    }
    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
      for (int p = 0; p < 3; p++) {
        List<ConsumerRecord<String, String>> read =
            Clients.readAll(consumer, new TopicPartition(topic, p));
        assertEquals(100, read.size(), "records in partition " + p);
        for (int j = 0; j < read.size(); j++) {
          ConsumerRecord<String, String> r = read.get(j);
          ProducerRecord<String, String> s = sent.get(j * 3 + p);
          assertEquals(j, r.offset());
          assertEquals(s.key(), r.key());
          assertEquals(s.value(), r.value());
          assertEquals(s.timestamp().longValue(), r.timestamp());
          assertArrayEquals(s.headers().toArray(), r.headers().toArray(), "headers of " + s.key());
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void compressedBatchesReadBackIntact(String codec) throws Exception {
    String topic = "compression-" + codec;
    Clients.createTopic(admin, topic, 2);
    int count = 2_000;
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        Clients.producer(
            kelp.bootstrap(),
            Map.of(
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                codec,
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                64 * 1024))) {
      for (int i = 0; i < count; i++) {
        acks.add(producer.send(new ProducerRecord<>(topic, i % 2, "k" + i, payload(i))));
      }
      producer.flush();
    }
    for (Future<RecordMetadata> ack : acks) {
      ack.get();
    }
    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
      for (int p = 0; p < 2; p++) {
        List<ConsumerRecord<String, String>> read =
            Clients.readAll(consumer, new TopicPartition(topic, p));
        assertEquals(count / 2, read.size(), codec + " records in partition " + p);
        for (int j = 0; j < read.size(); j++) {
          int i = j * 2 + p;
          assertEquals(j, read.get(j).offset(), codec + " offset");
          assertEquals("k" + i, read.get(j).key(), codec + " key");
          assertEquals(payload(i), read.get(j).value(), codec + " value of record " + i);
        }
      }
    }
  }

  /** A compressible value of a few hundred bytes that still differs per record. */
  private static String payload(int i) {
    return ("record " + i + " of the compression test; ").repeat(8) + i;
  }
}
