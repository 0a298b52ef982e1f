package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ClassicGroupDescription;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.ClassicGroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka Connect in distributed mode, two workers of one Connect cluster in this JVM, each with its
 * own REST listener: the workers form one group of protocol type {@code connect}; a
 * FileStreamSource connector copies a file into a topic and a FileStreamSink connector copies that
 * topic into another file; when one worker stops, the survivor runs every connector and task and
 * lines keep flowing; the internal config, offset and status topics are compacted.
 */
class ConnectCompatTest {
  private static final String GROUP = "connect-compat";
  private static final String TOPIC = "connect-compat-lines";
  private static final Map<String, String> INTERNAL_TOPICS =
      Map.of(
          "config.storage.topic", "connect-compat-configs",
          "offset.storage.topic", "connect-compat-offsets",
          "status.storage.topic", "connect-compat-status");
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static KelpProcess kelp;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("ConnectCompatTest");
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
  void fileConnectorsKeepRunningWhenAWorkerStops() throws Exception {
    long started = System.nanoTime();
    Path dir = Files.createDirectories(Path.of("target", "connect-compat"));
    Path source = dir.resolve("source.txt");
    Path sink = dir.resolve("sink.txt");
    Files.deleteIfExists(source);
    Files.deleteIfExists(sink);
    List<String> lines = numberedLines(0, 100);
    Files.write(source, lines, StandardCharsets.UTF_8);
    try (Admin admin = Clients.admin(kelp.bootstrap())) {
      Groups.createTopic(admin, TOPIC, 1);
    }
    List<Worker> workers = new ArrayList<>();
    try {
      workers.add(Worker.start(kelp.bootstrap()));
      workers.add(Worker.start(kelp.bootstrap()));
      for (Worker w : workers) {
        Groups.await(WAIT, "REST of worker " + w.id(), () -> get(w, "/") != null, () -> "");
      }
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Groups.await(
            WAIT,
            "both workers in group " + GROUP,
            () -> memberCount(admin) == 2,
            () -> "group: " + describe(admin));
        GroupListing listing =
            Clients.get(admin.listGroups().all()).stream()
                .filter(g -> g.groupId().equals(GROUP))
                .findFirst()
                .orElseThrow();
        assertEquals("connect", listing.protocol(), "protocol type of " + listing);
        assertEquals(ClassicGroupState.STABLE, describe(admin).state());
      }

      Worker first = workers.get(0);
      createConnector(
          first,
          "file-source",
          Map.of(
              "connector.class",
              "org.apache.kafka.connect.file.FileStreamSourceConnector",
              "tasks.max",
              "1",
              "file",
              source.toAbsolutePath().toString(),
              "topic",
              TOPIC));
      createConnector(
          first,
          "file-sink",
          Map.of(
              "connector.class",
              "org.apache.kafka.connect.file.FileStreamSinkConnector",
              "tasks.max",
              "1",
              "file",
              sink.toAbsolutePath().toString(),
              "topics",
              TOPIC));
      awaitTopic(lines);
      awaitFile(sink, lines);

      // Stop the worker that runs the source task, so that moving it is what keeps lines flowing.
      String sourceWorker = taskWorker(first, "file-source");
      Worker stopped =
          workers.stream().filter(w -> w.id().equals(sourceWorker)).findFirst().orElseThrow();
      Worker survivor = workers.stream().filter(w -> w != stopped).findFirst().orElseThrow();
      stopped.stop();
      workers.remove(stopped);
      for (String connector : List.of("file-source", "file-sink")) {
        Groups.await(
            WAIT,
            connector + " and its task RUNNING on " + survivor.id(),
            () -> runsOnlyOn(survivor, connector, survivor.id()),
            () -> String.valueOf(get(survivor, "/connectors/" + connector + "/status")));
      }
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Groups.await(WAIT, "one worker left in " + GROUP, () -> memberCount(admin) == 1, () -> "");
      }

      List<String> more = numberedLines(100, 50);
      Files.write(source, more, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
      List<String> all = new ArrayList<>(lines);
      all.addAll(more);
      awaitTopic(all);
      awaitFile(sink, all);

      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        // The sink task's consumer group (connect-<connector>) commits what the file holds.
        Map<Integer, Long> end = Map.of(0, (long) all.size());
        Groups.await(
            WAIT,
            "connect-file-sink commits " + end,
            () -> end.equals(Groups.committed(admin, "connect-file-sink")),
            () -> "committed " + Groups.committed(admin, "connect-file-sink"));
        assertInternalTopicsCompacted(admin);
      }
      System.out.printf(
          "ConnectCompatTest: %d lines through source and sink, %d s%n",
          all.size(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    } finally {
      for (Worker w : workers) {
        w.stop();
      }
    }
  }

  private static List<String> numberedLines(int from, int count) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      out.add("line " + i + " of the connect compat test");
    }
    return out;
  }

  /** Waits until the topic holds exactly {@code expected}, in order. */
  private static void awaitTopic(List<String> expected) {
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    List<String> seen = new ArrayList<>();
    Groups.await(
        WAIT,
        expected.size() + " lines in " + TOPIC,
        () -> {
          try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
            seen.clear();
            for (ConsumerRecord<String, String> r : Clients.readAll(consumer, tp)) {
              seen.add(r.value());
            }
          }
          return seen.size() >= expected.size();
        },
        () -> "read " + seen.size());
    assertEquals(expected, seen, "lines in " + TOPIC);
  }

  /** Waits until the file holds at least as many lines as expected, then compares. */
  private static void awaitFile(Path file, List<String> expected) throws IOException {
    Groups.await(
        WAIT,
        expected.size() + " lines in " + file,
        () -> readLines(file).size() >= expected.size(),
        () -> "read " + readLines(file).size());
    assertEquals(expected, readLines(file), "lines written by the sink");
  }

  private static List<String> readLines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ClassicGroupDescription describe(Admin admin) {
    return Clients.get(admin.describeClassicGroups(List.of(GROUP)).all()).get(GROUP);
  }

  /**
   * Members of the workers' group once it is stable, -1 while it rebalances; 0 while it is not
   * listed yet (describing it then fails, and the admin client logs that as an error).
   */
  private static int memberCount(Admin admin) {
    boolean listed =
        Clients.get(admin.listGroups().all()).stream().anyMatch(g -> g.groupId().equals(GROUP));
    if (!listed) {
      return 0;
    }
    ClassicGroupDescription group = describe(admin);
    return group.state() == ClassicGroupState.STABLE ? group.members().size() : -1;
  }

  private static void assertInternalTopicsCompacted(Admin admin) {
    Set<String> topics = Clients.get(admin.listTopics().names());
    assertTrue(
        topics.containsAll(INTERNAL_TOPICS.values()),
        "internal topics " + INTERNAL_TOPICS.values() + " among " + new TreeSet<>(topics));
    List<ConfigResource> resources = new ArrayList<>();
    INTERNAL_TOPICS
        .values()
        .forEach(t -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t)));
    Map<ConfigResource, Config> configs = Clients.get(admin.describeConfigs(resources).all());
    for (ConfigResource r : resources) {
      assertEquals(
          TopicConfig.CLEANUP_POLICY_COMPACT,
          configs.get(r).get(TopicConfig.CLEANUP_POLICY_CONFIG).value(),
          "cleanup.policy of " + r.name());
    }
  }

  private void createConnector(Worker worker, String name, Map<String, String> config)
      throws Exception {
    String body = JSON.writeValueAsString(Map.of("name", name, "config", config));
    HttpRequest request =
        HttpRequest.newBuilder(worker.url("/connectors"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertEquals(201, response.statusCode(), "create " + name + ": " + response.body());
  }

  /** The worker id that runs task 0 of the connector, once it runs. */
  private String taskWorker(Worker worker, String connector) {
    String[] id = new String[1];
    Groups.await(
        WAIT,
        "task 0 of " + connector + " RUNNING",
        () -> {
          JsonNode status = get(worker, "/connectors/" + connector + "/status");
          JsonNode task = status == null ? null : status.path("tasks").path(0);
          if (task == null || !"RUNNING".equals(task.path("state").asText())) {
            return false;
          }
          id[0] = task.path("worker_id").asText();
          return true;
        },
        () -> String.valueOf(get(worker, "/connectors/" + connector + "/status")));
    return id[0];
  }

  /** Whether the connector and each of its tasks are RUNNING on the given worker. */
  private boolean runsOnlyOn(Worker worker, String connector, String workerId) {
    JsonNode status = get(worker, "/connectors/" + connector + "/status");
    if (status == null || !running(status.path("connector"), workerId)) {
      return false;
    }
    JsonNode tasks = status.path("tasks");
    if (tasks.isEmpty()) {
      return false;
    }
    for (JsonNode task : tasks) {
      if (!running(task, workerId)) {
        return false;
      }
    }
    return true;
  }

  private static boolean running(JsonNode node, String workerId) {
    return "RUNNING".equals(node.path("state").asText())
        && workerId.equals(node.path("worker_id").asText());
  }

  /** GETs a REST path; null for any status but 200 or when the worker does not answer. */
  private JsonNode get(Worker worker, String path) {
    HttpRequest request =
        HttpRequest.newBuilder(worker.url(path)).timeout(Duration.ofSeconds(10)).GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A distributed Connect worker in this JVM, with its REST listener on a free local port. */
  private record Worker(Connect<DistributedHerder> connect, int port) {
    static Worker start(String bootstrap) throws IOException {
      int port = LocalPorts.free();
      Map<String, String> props = new HashMap<>(INTERNAL_TOPICS);
      props.put("bootstrap.servers", bootstrap);
      props.put("group.id", GROUP);
      props.put("config.storage.replication.factor", "1");
      props.put("offset.storage.replication.factor", "1");
      props.put("status.storage.replication.factor", "1");
      props.put("offset.storage.partitions", "5");
      props.put("status.storage.partitions", "3");
      props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
      props.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
      props.put("listeners", "http://127.0.0.1:" + port);
      props.put("rest.advertised.host.name", "127.0.0.1");
      // Plugins are found through their service files rather than by scanning every jar.
      props.put("plugin.discovery", "service_load");
      // Source offsets and sink commits every second rather than every minute.
      props.put("offset.flush.interval.ms", "1000");
      // A stopped worker's tasks move at once instead of waiting up to 5 minutes for it to return.
      props.put("scheduled.rebalance.max.delay.ms", "0");
      props.put("heartbeat.interval.ms", "1000");
      return new Worker(new ConnectDistributed().startConnect(props), port);
    }

    /** The id the worker reports in connector status: its advertised REST host and port. */
    String id() {
      return "127.0.0.1:" + port;
    }

    URI url(String path) {
      return URI.create("http://127.0.0.1:" + port + path);
    }

    void stop() {
      connect.stop();
      connect.awaitStop();
    }
  }
}
