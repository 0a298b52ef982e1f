package io.kelp.gateway.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kelp.gateway.testing.TestBroker;
import io.kelp.seaweed.WeedProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One broker on a real SeaweedFS: what it acknowledged is there after a restart. The filer serves
 * gRPC on a port of its own, so the broker is also shown to reach it through {@code --filer
 * HOST:PORT.GRPC_PORT}.
 */
class SeaweedBrokerSmokeTest {
  @TempDir Path dir;

  @Test
  void producedRecordsSurviveABrokerRestartAndLeaveTheLocalDiskEmpty() throws Exception {
    try (WeedProcess weed = WeedProcess.startWithOwnFilerGrpcPort();
        TestBroker kelp = brokerOn(weed)) {
      try (Admin admin = kelp.admin()) {
        admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
        // The log directory is the namespace's directory on the filer, of unknown capacity.
        Map<String, LogDirDescription> dirs =
            admin.describeLogDirs(List.of(0)).allDescriptions().get().get(0);
        LogDirDescription d = dirs.get("seaweedfs:" + weed.filerAddress() + "/topics/kafka");
        assertNotNull(d, "log dirs: " + dirs.keySet());
        assertTrue(d.replicaInfos().containsKey(new TopicPartition("orders", 1)));
        assertFalse(d.totalBytes().isPresent());
      }
      try (KafkaProducer<String, String> p =
          kelp.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
        for (int i = 0; i < 100; i++) {
          p.send(new ProducerRecord<>("orders", i % 2, "k" + i, "v" + i)).get();
        }
      }
      kelp.restart();
      List<TopicPartition> tps =
          List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1));
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
        c.assign(tps);
        c.seekToBeginning(tps);
        long deadline = System.currentTimeMillis() + 30000;
        while (got.size() < 100 && System.currentTimeMillis() < deadline) {
          c.poll(Duration.ofMillis(200)).forEach(got::add);
        }
      }
      assertEquals(100, got.size());
      assertEquals(false, Files.exists(dir.resolve("unused")), "nothing on the local disk");
    }
  }

  /**
   * A running broker's acknowledged records are in SeaweedFS's own view of the segment files once
   * the partition has been left alone for a moment: read through the filer's HTTP API, as any
   * SeaweedFS tool reads them, the files hold every record, with no restart or clean stop. Fifty
   * appends fill a segment's 32 reserved ids and go on in the next segment, whose appends only the
   * broker would know of otherwise.
   */
  @Test
  void seaweedFsOwnViewHoldsEveryAcknowledgedRecordOnceThePartitionIsIdle() throws Exception {
    try (WeedProcess weed = WeedProcess.start();
        TestBroker kelp = brokerOn(weed)) {
      try (Admin admin = kelp.admin()) {
        admin.createTopics(List.of(new NewTopic("visible", 1, (short) 1))).all().get();
      }
      int records = 50;
      try (KafkaProducer<String, String> p =
          kelp.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
        for (int i = 0; i < records; i++) {
          p.send(new ProducerRecord<>("visible", 0, "k" + i, "v" + i)).get();
        }
      }
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://" + weed.filerHttpAddress();
      String range = only(http, base, only(http, base, "/topics/kafka/visible", "v"), "");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      int seen = 0;
      while (System.nanoTime() < deadline) {
        seen = 0;
        for (String file : list(http, base, range)) {
          if (file.endsWith(".log")) {
            seen += countRecords(get(http, base + file).body());
          }
        }
        if (seen == records) {
          break;
        }
        Thread.sleep(200);
      }
      assertEquals(records, seen, "records in the .log files the filer serves under " + range);
    }
  }

  /** A broker on {@code weed}'s filer, its local data directory never created. */
  private TestBroker brokerOn(WeedProcess weed) throws Exception {
    return TestBroker.start(
        dir.resolve("unused"),
        Map.of(BrokerConfig.STORE, "seaweedfs", BrokerConfig.FILER, weed.filerAddress()));
  }

  private static HttpResponse<byte[]> get(HttpClient http, String url) throws Exception {
    HttpResponse<byte[]> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).header("Accept", "application/json").build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, r.statusCode(), url);
    return r;
  }

  /** The full paths of a filer directory's entries, from its JSON listing. */
  private static List<String> list(HttpClient http, String base, String directory)
      throws Exception {
    JsonNode listing = new ObjectMapper().readTree(get(http, base + directory + "/").body());
    List<String> out = new ArrayList<>();
    for (JsonNode e : listing.path("Entries")) {
      out.add(e.path("FullPath").asText());
    }
    return out;
  }

  /** The one entry of a filer directory whose name starts with {@code prefix}. */
  private static String only(HttpClient http, String base, String directory, String prefix)
      throws Exception {
    List<String> entries =
        list(http, base, directory).stream()
            .filter(e -> e.substring(e.lastIndexOf('/') + 1).startsWith(prefix))
            .toList();
    assertEquals(1, entries.size(), directory + ": " + entries);
    return entries.get(0);
  }

  /** The records in a run of Kafka record batches (a segment file's bytes). */
  private static int countRecords(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int records = 0;
    int at = 0;
    while (at + 61 <= bytes.length) {
      int batchLength = b.getInt(at + 8);
      records += b.getInt(at + 57);
      at += 12 + batchLength;
    }
    return records;
  }

  /**
   * Two brokers on one filer never both write a partition. Until brokers coordinate through
   * SeaweedFS, the owner is whoever claimed with the higher epoch (each broker id counts its own
   * starts): a second broker with an equal epoch refuses to start, and one with a higher epoch
   * takes the partitions over, after which the first broker's writes are refused. Every
   * acknowledged record is kept, at the offset it was acknowledged with. The groups go over with
   * the broker that starts last: it reads the first one's committed offsets, and the first one's
   * later commits fail.
   */
  @Test
  void aSecondBrokerOnTheSameFilerNeverWritesAlongsideTheFirst() throws Exception {
    try (WeedProcess weed = WeedProcess.start()) {
      Map<String, String> seaweed =
          Map.of(BrokerConfig.STORE, "seaweedfs", BrokerConfig.FILER, weed.filerAddress());
      Map<String, String> second = new HashMap<>(seaweed);
      second.put(BrokerConfig.BROKER_ID, "1");
      try (TestBroker first = TestBroker.start(dir.resolve("a"), seaweed)) {
        try (Admin admin = first.admin()) {
          admin.createTopics(List.of(new NewTopic("shared", 1, (short) 1))).all().get();
        }
        try (KafkaProducer<String, String> p = first.producer(Map.of())) {
          for (int i = 0; i < 5; i++) {
            assertEquals(i, p.send(new ProducerRecord<>("shared", "first-" + i)).get().offset());
          }
        }
        // Broker 1's first start has epoch 0, broker 0's too: refused.
        Exception refused =
            assertThrows(Exception.class, () -> TestBroker.start(dir.resolve("b"), second));
        assertTrue(
            String.valueOf(refused.getMessage()).contains("another writer"), refused.toString());
        try (KafkaProducer<String, String> p = first.producer(Map.of())) {
          assertEquals(5, p.send(new ProducerRecord<>("shared", "first-5")).get().offset());
        }
        TopicPartition shared = new TopicPartition("shared", 0);
        // The refused start took nothing over: the first broker's group writes still land.
        commit(first, shared, 4);
        // Its next start has epoch 1 and takes the partition over, and the groups with it.
        try (TestBroker taker = TestBroker.start(dir.resolve("c"), second)) {
          try (KafkaProducer<String, String> p = taker.producer(Map.of())) {
            assertEquals(6, p.send(new ProducerRecord<>("shared", "second-6")).get().offset());
          }
          assertEquals(4, committed(taker, shared));
          assertThrows(KafkaException.class, () -> commit(first, shared, 5));
          commit(taker, shared, 6);
          assertEquals(6, committed(taker, shared));
          try (KafkaProducer<String, String> p =
              first.producer(
                  Map.of(
                      ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5000,
                      ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 4000))) {
            assertThrows(
                ExecutionException.class,
                () -> p.send(new ProducerRecord<>("shared", "first-late")).get());
          }
          List<String> values = new ArrayList<>();
          try (KafkaConsumer<String, String> c = taker.consumer(Map.of())) {
            c.assign(List.of(shared));
            c.seekToBeginning(List.of(shared));
            long deadline = System.currentTimeMillis() + 30000;
            while (values.size() < 7 && System.currentTimeMillis() < deadline) {
              for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                assertEquals(values.size(), r.offset());
                values.add(r.value());
              }
            }
            assertTrue(c.poll(Duration.ofMillis(500)).isEmpty(), "nothing after " + values);
          }
          assertEquals(
              List.of("first-0", "first-1", "first-2", "first-3", "first-4", "first-5", "second-6"),
              values);
        }
      }
    }
  }

  /** Commits {@code offset} for group "readers" through {@code broker}, waiting at most 3 s. */
  private static void commit(TestBroker broker, TopicPartition tp, long offset) {
    try (KafkaConsumer<String, String> c =
        broker.consumer(
            Map.of(
                ConsumerConfig.GROUP_ID_CONFIG,
                "readers",
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                3000))) {
      c.assign(List.of(tp));
      c.commitSync(Map.of(tp, new OffsetAndMetadata(offset)), Duration.ofSeconds(3));
    }
  }

  private static long committed(TestBroker broker, TopicPartition tp) throws Exception {
    try (Admin admin = broker.admin()) {
      return admin
          .listConsumerGroupOffsets("readers")
          .partitionsToOffsetAndMetadata()
          .get()
          .get(tp)
          .offset();
    }
  }
}
