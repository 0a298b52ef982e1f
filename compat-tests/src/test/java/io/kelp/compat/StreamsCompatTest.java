package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Kafka Streams word count (split lines, group by word, count, write the counts out) with two
 * instances of one application id in this JVM, at_least_once: the counts on the output topic are
 * those of the input, both instances run tasks, and after one instance closes the other runs every
 * task and keeps the counts right. The topology's repartition and changelog topics are created by
 * Streams itself; the changelog is compacted.
 */
class StreamsCompatTest {
  private static final String APP = "streams-compat";
  private static final String INPUT = "streams-compat-lines";
  private static final String OUTPUT = "streams-compat-counts";
  private static final String STORE = "word-counts";
  private static final int PARTITIONS = 4;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<String> WORDS =
      List.of("kelp", "kafka", "stream", "count", "word", "broker", "group", "topic");

  private static KelpProcess kelp;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("StreamsCompatTest");
  }

  @AfterAll
  static void stopBroker() {
    if (kelp != null) {
      try (KelpProcess broker = kelp) {
        broker.stop();
      }
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void wordCountSurvivesAnInstanceClosing() throws Exception {
    long started = System.nanoTime();
    Path stateDirs = Path.of("target", "streams-compat-state");
    deleteRecursively(stateDirs);
    try (Admin admin = Clients.admin(kelp.bootstrap())) {
      Groups.createTopic(admin, INPUT, PARTITIONS);
      Groups.createTopic(admin, OUTPUT, PARTITIONS);
    }
    List<KafkaStreams> instances = new ArrayList<>();
    try {
      KafkaStreams a = start("a", stateDirs.resolve("a"));
      instances.add(a);
      KafkaStreams b = start("b", stateDirs.resolve("b"));
      instances.add(b);
      Groups.await(
          WAIT,
          "both instances RUNNING with active tasks",
          () -> runningWithTasks(a) && runningWithTasks(b),
          () -> "a " + describe(a) + ", b " + describe(b));
      Set<TaskId> ofA = activeTasks(a);
      Set<TaskId> ofB = activeTasks(b);
      Set<TaskId> shared = new HashSet<>(ofA);
      shared.retainAll(ofB);
      assertTrue(shared.isEmpty(), "a task active on both instances: " + shared);

      Map<String, Long> expected = new TreeMap<>();
      produce(0, 200, expected);
      awaitCounts(expected);
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        assertInternalTopics(admin);
      }

      a.close(
          CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
              .withTimeout(Duration.ofSeconds(30)));
      instances.remove(a);
      Set<TaskId> all = new TreeSet<>(ofA);
      all.addAll(ofB);
      Groups.await(
          WAIT,
          "b runs every task " + all,
          () -> b.state() == KafkaStreams.State.RUNNING && activeTasks(b).equals(all),
          () -> "b " + describe(b));

      produce(200, 150, expected);
      awaitCounts(expected);
      System.out.printf(
          "StreamsCompatTest: tasks a %s, b %s; %d words counted; %d s%n",
          ofA,
          ofB,
          expected.values().stream().mapToLong(Long::longValue).sum(),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    } finally {
      for (KafkaStreams s : instances) {
        s.close(Duration.ofSeconds(30));
      }
    }
  }

  private static Topology topology() {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.split(" ")))
        .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.as(STORE))
        .toStream()
        .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
    return builder.build();
  }

  private static KafkaStreams start(String name, Path stateDir) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
    p.put(StreamsConfig.CLIENT_ID_CONFIG, APP + "-" + name);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kelp.bootstrap());
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
    // Transactions (exactly_once_v2) are not in Kelp yet.
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    // Counts reach the output topic within a second rather than at the 30 s default commit.
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    KafkaStreams streams = new KafkaStreams(topology(), p);
    streams.start();
    return streams;
  }

  /**
   * Writes {@code count} lines of three words each, numbered from {@code from}, keyed by line
   * number so that they spread over the input partitions, and adds their words to {@code counts}.
   */
  private static void produce(int from, int count, Map<String, Long> counts) {
    try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
      for (int i = from; i < from + count; i++) {
        List<String> line =
            List.of(
                WORDS.get(i % WORDS.size()),
                WORDS.get((i / 3) % WORDS.size()),
                WORDS.get((i * 7 + 1) % WORDS.size()));
        line.forEach(w -> counts.merge(w, 1L, Long::sum));
        producer.send(new ProducerRecord<>(INPUT, "line-" + i, String.join(" ", line)));
      }
      producer.flush();
    }
  }

  /**
   * Waits until the last count per word on the output topic is the expected one, then reads on for
   * a few commit intervals and checks that no count went past it (a word counted twice).
   */
  private static void awaitCounts(Map<String, Long> expected) {
    Map<String, Long> latest = new TreeMap<>();
    try (KafkaConsumer<String, Long> consumer = longConsumer()) {
      List<TopicPartition> partitions = Groups.partitions(OUTPUT, PARTITIONS);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (!latest.equals(expected) && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> latest.put(r.key(), r.value()));
      }
      long settle = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (System.nanoTime() < settle) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> latest.put(r.key(), r.value()));
      }
    }
    assertEquals(expected, latest, "last count per word on " + OUTPUT);
  }

  private static KafkaConsumer<String, Long> longConsumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kelp.bootstrap());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
    return new KafkaConsumer<>(p);
  }

  /** Streams names its internal topics after the application id and the store. */
  private static void assertInternalTopics(Admin admin) {
    String repartition = APP + "-" + STORE + "-repartition";
    String changelog = APP + "-" + STORE + "-changelog";
    Set<String> topics = Clients.get(admin.listTopics().names());
    assertTrue(topics.contains(repartition), repartition + " among " + new TreeSet<>(topics));
    assertTrue(topics.contains(changelog), changelog + " among " + new TreeSet<>(topics));
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
    Config config = Clients.get(admin.describeConfigs(List.of(resource)).all()).get(resource);
    assertEquals(
        TopicConfig.CLEANUP_POLICY_COMPACT,
        config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value(),
        "cleanup.policy of " + changelog);
    int partitions =
        Clients.get(admin.describeTopics(List.of(repartition)).allTopicNames())
            .get(repartition)
            .partitions()
            .size();
    assertEquals(PARTITIONS, partitions, "partitions of " + repartition);
  }

  private static boolean runningWithTasks(KafkaStreams streams) {
    return streams.state() == KafkaStreams.State.RUNNING && !activeTasks(streams).isEmpty();
  }

  private static Set<TaskId> activeTasks(KafkaStreams streams) {
    Set<TaskId> out = new TreeSet<>();
    for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
      thread.activeTasks().forEach(t -> out.add(t.taskId()));
    }
    return out;
  }

  private static String describe(KafkaStreams streams) {
    return streams.state() + " " + activeTasks(streams);
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertFalse(Files.exists(dir), "state directory " + dir + " left behind");
  }
}
