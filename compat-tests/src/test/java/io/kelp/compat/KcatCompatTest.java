package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** kcat (librdkafka) producing and consuming keyed messages with headers, against Java clients. */
class KcatCompatTest {
  private static final Duration KCAT_TIMEOUT = Duration.ofSeconds(60);

  /** key|value|headers|partition|offset, one message a line. */
  private static final String FORMAT = "%k|%s|%h|%p|%o\\n";

  private static KelpProcess kelp;
  private static Admin admin;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("KcatCompatTest");
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
  void kcatProducesKeyedMessagesWithHeadersThatJavaReads() {
    String topic = "from-kcat";
    Clients.createTopic(admin, topic, 1);
    Kcat.Result produced =
        Kcat.run(
            KCAT_TIMEOUT,
            "alpha:first value\nbeta:second value\ngamma:third value\n",
            "-b",
            kelp.bootstrap(),
            "-t",
            topic,
            "-p",
            "0",
            "-P",
            "-K:",
            "-H",
            "trace=abc-123",
            "-H",
            "source=kcat");
    assertEquals(0, produced.exitCode(), produced.toString());

    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
      List<ConsumerRecord<String, String>> read =
          Clients.readAll(consumer, new TopicPartition(topic, 0));
      assertEquals(
          List.of("alpha", "beta", "gamma"), read.stream().map(ConsumerRecord::key).toList());
      assertEquals(
          List.of("first value", "second value", "third value"),
          read.stream().map(ConsumerRecord::value).toList());
      for (ConsumerRecord<String, String> r : read) {
        List<String> headers = new ArrayList<>();
        for (Header h : r.headers()) {
          headers.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8));
        }
        assertEquals(List.of("trace=abc-123", "source=kcat"), headers, "headers of " + r.key());
      }
      assertEquals(List.of(0L, 1L, 2L), read.stream().map(ConsumerRecord::offset).toList());
    }

    Kcat.Result consumed =
        Kcat.run(
            KCAT_TIMEOUT,
            "",
            "-b",
            kelp.bootstrap(),
            "-t",
            topic,
            "-C",
            "-e",
            "-q",
            "-o",
            "beginning",
            "-f",
            FORMAT);
    assertEquals(0, consumed.exitCode(), consumed.toString());
    assertEquals(
        List.of(
            "alpha|first value|trace=abc-123,source=kcat|0|0",
            "beta|second value|trace=abc-123,source=kcat|0|1",
            "gamma|third value|trace=abc-123,source=kcat|0|2"),
        consumed.lines(),
        consumed.toString());
  }

  @Test
  void kcatConsumesWhatTheJavaProducerWrote() throws Exception {
    String topic = "from-java";
    Clients.createTopic(admin, topic, 2);
    try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
      for (int i = 0; i < 4; i++) {
        List<Header> headers =
            List.of(
                new RecordHeader("n", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                new RecordHeader("app", "java".getBytes(StandardCharsets.UTF_8)));
        producer.send(new ProducerRecord<>(topic, i % 2, "key" + i, "value " + i, headers)).get();
      }
    }
    for (int p = 0; p < 2; p++) {
      Kcat.Result consumed =
          Kcat.run(
              KCAT_TIMEOUT,
              "",
              "-b",
              kelp.bootstrap(),
              "-t",
              topic,
              "-p",
              Integer.toString(p),
              "-C",
              "-e",
              "-q",
              "-o",
              "beginning",
              "-f",
              FORMAT);
      assertEquals(0, consumed.exitCode(), consumed.toString());
      assertEquals(
          List.of(
              "key" + p + "|value " + p + "|n=" + p + ",app=java|" + p + "|0",
              "key" + (p + 2) + "|value " + (p + 2) + "|n=" + (p + 2) + ",app=java|" + p + "|1"),
          consumed.lines(),
          consumed.toString());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
  void kcatCompressedBatchesReadBackInJavaAndKcat(String codec) {
    String topic = "kcat-" + codec;
    Clients.createTopic(admin, topic, 1);
    StringBuilder input = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      input.append("key").append(i).append(':').append(("value " + i + " ").repeat(5)).append('\n');
    }
    Kcat.Result produced =
        Kcat.run(
            KCAT_TIMEOUT,
            input.toString(),
            "-b",
            kelp.bootstrap(),
            "-t",
            topic,
            "-p",
            "0",
            "-P",
            "-K:",
            "-z",
            codec,
            "-X",
            "linger.ms=50");
    assertEquals(0, produced.exitCode(), produced.toString());

    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
      List<ConsumerRecord<String, String>> read =
          Clients.readAll(consumer, new TopicPartition(topic, 0));
      assertEquals(200, read.size(), codec);
      for (int i = 0; i < 200; i++) {
        assertEquals(i, read.get(i).offset());
        assertEquals("key" + i, read.get(i).key());
        assertEquals(("value " + i + " ").repeat(5), read.get(i).value());
      }
    }
    Kcat.Result consumed =
        Kcat.run(
            KCAT_TIMEOUT,
            "",
            "-b",
            kelp.bootstrap(),
            "-t",
            topic,
            "-C",
            "-e",
            "-q",
            "-o",
            "beginning",
            "-f",
            "%k|%o\\n");
    assertEquals(0, consumed.exitCode(), consumed.toString());
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      expected.add("key" + i + "|" + i);
    }
    assertEquals(expected, consumed.lines(), codec);
  }

  @Test
  void kcatListsTheTopicInMetadata() {
    String topic = "listed-by-kcat";
    Clients.createTopic(admin, topic, 3);
    Kcat.Result metadata = Kcat.run(KCAT_TIMEOUT, "", "-b", kelp.bootstrap(), "-L", "-t", topic);
    assertEquals(0, metadata.exitCode(), metadata.toString());
    String out = metadata.stdout();
    assertEquals(
        1,
        out.lines().filter(l -> l.contains("topic \"" + topic + "\" with 3 partitions")).count(),
        out);
    assertEquals(
        1, out.lines().filter(l -> l.contains("at 127.0.0.1:" + kelp.port())).count(), out);
  }
}
