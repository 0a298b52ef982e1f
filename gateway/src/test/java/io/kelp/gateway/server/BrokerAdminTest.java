package io.kelp.gateway.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.gateway.testing.TestBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin APIs through kafka-clients' Admin against a real broker. */
class BrokerAdminTest {
  @TempDir Path dir;
  private TestBroker kelp;
  private Admin admin;

  @BeforeEach
  void start() throws Exception {
    kelp = TestBroker.start(dir, Map.of("default.partitions", "2"));
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

  private static Throwable cause(ExecutionException e) {
    return e.getCause();
  }

  private Config topicConfig(String topic) throws Exception {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return admin.describeConfigs(List.of(r)).all().get().get(r);
  }

  @Test
  void createDescribeListAndDeleteTopics() throws Exception {
    CreateTopicsResult created =
        admin.createTopics(
            List.of(
                new NewTopic("orders", 3, (short) 1)
                    .configs(Map.of("retention.ms", "3600000", "cleanup.policy", "compact"))));
    created.all().get();
    assertEquals(3, created.numPartitions("orders").get());
    assertEquals(1, created.replicationFactor("orders").get());
    assertEquals("3600000", created.config("orders").get().get("retention.ms").value());
    assertNotNull(created.topicId("orders").get());

    assertTrue(admin.listTopics().names().get().contains("orders"));
    TopicDescription d =
        admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");
    assertEquals(3, d.partitions().size());
    for (TopicPartitionInfo p : d.partitions()) {
      assertEquals(0, p.leader().id());
      assertEquals(kelp.port(), p.leader().port());
      assertEquals(1, p.replicas().size());
      assertEquals(1, p.isr().size());
    }
    assertEquals(created.topicId("orders").get(), d.topicId());

    Config config = topicConfig("orders");
    ConfigEntry retention = config.get("retention.ms");
    assertEquals("3600000", retention.value());
    assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, retention.source());
    assertEquals("compact", config.get("cleanup.policy").value());
    ConfigEntry segmentMs = config.get("segment.ms");
    assertEquals("604800000", segmentMs.value());
    assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, segmentMs.source());

    admin.deleteTopics(List.of("orders")).all().get();
    assertFalse(admin.listTopics().names().get().contains("orders"));
    try (Stream<Path> files = Files.walk(dir)) {
      assertTrue(
          files.noneMatch(p -> p.toString().contains("/orders")),
          "the topic's data is gone from the store");
    }
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> admin.describeTopics(List.of("orders")).allTopicNames().get());
    assertInstanceOf(UnknownTopicOrPartitionException.class, cause(e));
  }

  @Test
  void createTopicErrorsAreKafkas() throws Exception {
    admin.createTopics(List.of(new NewTopic("taken", 1, (short) 1))).all().get();
    Map<NewTopic, Class<? extends Throwable>> cases =
        Map.of(
            new NewTopic("taken", 1, (short) 1),
            TopicExistsException.class,
            new NewTopic("bad name!", 1, (short) 1),
            InvalidTopicException.class,
            new NewTopic("three-copies", 1, (short) 3),
            InvalidReplicationFactorException.class,
            new NewTopic("bad-config", 1, (short) 1).configs(Map.of("retention.mss", "1")),
            InvalidConfigurationException.class,
            new NewTopic("bad-value", 1, (short) 1).configs(Map.of("retention.ms", "soon")),
            InvalidConfigurationException.class,
            new NewTopic("zero", 0, (short) 1),
            InvalidPartitionsException.class);
    for (Map.Entry<NewTopic, Class<? extends Throwable>> c : cases.entrySet()) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> admin.createTopics(List.of(c.getKey())).all().get(),
              c.getKey().toString());
      assertInstanceOf(c.getValue(), cause(e), c.getKey().toString());
    }
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                admin
                    .createTopics(
                        List.of(
                            new NewTopic("bad-config", 1, (short) 1)
                                .configs(Map.of("retention.mss", "1"))))
                    .all()
                    .get());
    assertTrue(cause(e).getMessage().contains("retention.mss"), cause(e).getMessage());
    assertEquals(Set.of("taken"), admin.listTopics().names().get());
  }

  @Test
  void collidingNamesAreRejected() throws Exception {
    admin.createTopics(List.of(new NewTopic("a.b", 1, (short) 1))).all().get();
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> admin.createTopics(List.of(new NewTopic("a_b", 1, (short) 1))).all().get());
    assertInstanceOf(InvalidTopicException.class, cause(e));
  }

  @Test
  void defaultsAndValidateOnly() throws Exception {
    CreateTopicsResult validated =
        admin.createTopics(
            List.of(new NewTopic("dry", Optional.empty(), Optional.empty())),
            new CreateTopicsOptions().validateOnly(true));
    validated.all().get();
    assertEquals(2, validated.numPartitions("dry").get(), "default.partitions");
    assertFalse(admin.listTopics().names().get().contains("dry"));

    admin
        .createTopics(List.of(new NewTopic("defaults", Optional.empty(), Optional.empty())))
        .all()
        .get();
    assertEquals(
        2,
        admin
            .describeTopics(List.of("defaults"))
            .allTopicNames()
            .get()
            .get("defaults")
            .partitions()
            .size());
  }

  @Test
  void createPartitionsGrowsAndNeverShrinks() throws Exception {
    admin.createTopics(List.of(new NewTopic("grow", 1, (short) 1))).all().get();
    admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(4))).all().get();
    assertEquals(
        4,
        admin
            .describeTopics(List.of("grow"))
            .allTopicNames()
            .get()
            .get("grow")
            .partitions()
            .size());
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(2))).all().get());
    assertInstanceOf(InvalidPartitionsException.class, cause(e));
    e =
        assertThrows(
            ExecutionException.class,
            () -> admin.createPartitions(Map.of("nope", NewPartitions.increaseTo(2))).all().get());
    assertInstanceOf(UnknownTopicOrPartitionException.class, cause(e));
  }

  @Test
  void incrementalAlterConfigsSetsDeletesAndRejectsUnknownKeys() throws Exception {
    admin.createTopics(List.of(new NewTopic("conf", 1, (short) 1))).all().get();
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, "conf");
    admin
        .incrementalAlterConfigs(
            Map.of(
                r,
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(
                        new ConfigEntry("max.message.bytes", "2000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(
                        new ConfigEntry("cleanup.policy", "compact"),
                        AlterConfigOp.OpType.APPEND))))
        .all()
        .get();
    Config c = topicConfig("conf");
    assertEquals("1000", c.get("retention.ms").value());
    assertEquals("2000", c.get("max.message.bytes").value());
    assertEquals("delete,compact", c.get("cleanup.policy").value());
    assertEquals(
        2000,
        kelp.broker().services().topics().get("conf").orElseThrow().config().maxMessageBytes());
    assertEquals(
        1000,
        kelp.broker().services().topics().get("conf").orElseThrow().log(0).config().retentionMs(),
        "the open log got the new config");

    admin
        .incrementalAlterConfigs(
            Map.of(
                r,
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE))))
        .all()
        .get();
    assertEquals(
        ConfigEntry.ConfigSource.DEFAULT_CONFIG, topicConfig("conf").get("retention.ms").source());

    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            r,
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("no.such.key", "1"),
                                    AlterConfigOp.OpType.SET))))
                    .all()
                    .get());
    assertInstanceOf(InvalidConfigurationException.class, cause(e));
    assertTrue(cause(e).getMessage().contains("no.such.key"));

    admin
        .incrementalAlterConfigs(
            Map.of(
                r,
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", "5"), AlterConfigOp.OpType.SET))),
            new org.apache.kafka.clients.admin.AlterConfigsOptions().validateOnly(true))
        .all()
        .get();
    assertEquals("604800000", topicConfig("conf").get("retention.ms").value(), "validate only");
  }

  @Test
  void brokerConfigsAreReadOnly() throws Exception {
    ConfigResource b = new ConfigResource(ConfigResource.Type.BROKER, "0");
    Config c = admin.describeConfigs(List.of(b)).all().get().get(b);
    assertEquals("0", c.get("broker.id").value());
    assertTrue(c.get("broker.id").isReadOnly());
    assertEquals("true", c.get("auto.create.topics.enable").value());
    assertEquals("604800000", c.get("log.retention.ms").value());
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            b,
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("log.retention.ms", "1"),
                                    AlterConfigOp.OpType.SET))))
                    .all()
                    .get());
    assertInstanceOf(org.apache.kafka.common.errors.InvalidRequestException.class, cause(e));
  }

  @Test
  void describeClusterAndLogDirs() throws Exception {
    DescribeClusterResult cluster = admin.describeCluster();
    String clusterId = cluster.clusterId().get();
    assertEquals(22, clusterId.length());
    assertEquals(0, cluster.controller().get().id());
    assertEquals(1, cluster.nodes().get().size());
    assertEquals(kelp.port(), cluster.nodes().get().iterator().next().port());
    // v2 (KIP-1073): asking for fenced brokers as well still lists this one, not fenced
    Collection<Node> withFenced =
        admin
            .describeCluster(new DescribeClusterOptions().includeFencedBrokers(true))
            .nodes()
            .get();
    assertEquals(1, withFenced.size());
    assertFalse(withFenced.iterator().next().isFenced());

    admin.createTopics(List.of(new NewTopic("sized", 2, (short) 1))).all().get();
    Map<String, LogDirDescription> dirs =
        admin.describeLogDirs(List.of(0)).allDescriptions().get().get(0);
    assertEquals(1, dirs.size());
    String logDir = dirs.keySet().iterator().next();
    assertEquals(dir.toAbsolutePath().normalize().toString(), logDir);
    LogDirDescription d = dirs.get(logDir);
    assertTrue(
        d.replicaInfos().containsKey(new org.apache.kafka.common.TopicPartition("sized", 1)));
    assertTrue(d.totalBytes().isPresent());

    kelp.restart();
    try (Admin again = kelp.admin()) {
      assertEquals(clusterId, again.describeCluster().clusterId().get(), "stable across restarts");
      assertTrue(again.listTopics().names().get().contains("sized"));
    }
  }

  @Test
  void metadataAutoCreatesTopicsWhenAllowed() throws Exception {
    try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
      Collection<?> partitions = c.partitionsFor("auto-made");
      assertEquals(2, partitions.size(), "default.partitions");
    }
    assertTrue(admin.listTopics().names().get().contains("auto-made"));
  }

  @Test
  void metadataDoesNotAutoCreateWhenTheBrokerForbidsIt() throws Exception {
    try (TestBroker strict =
            TestBroker.start(dir.resolve("strict"), Map.of("auto.create.topics", "false"));
        KafkaConsumer<String, String> c = strict.consumer(Map.of("default.api.timeout.ms", 3000))) {
      assertTrue(c.partitionsFor("absent").isEmpty(), "an unknown topic has no partitions");
      try (Admin a = strict.admin()) {
        assertFalse(a.listTopics().names().get().contains("absent"));
      }
    }
  }

  @Test
  void aTopicWhoseFileCannotBeReadIsLeftOutAndKeepsItsName() throws Exception {
    admin
        .createTopics(
            List.of(
                new NewTopic("kept", 1, (short) 1),
                new NewTopic("broken", 3, (short) 1),
                new NewTopic("badconfig", 1, (short) 1).configs(Map.of("retention.ms", "1000"))))
        .all()
        .get();
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      p.send(new ProducerRecord<>("kept", "k", "v")).get();
    }
    admin.close();
    admin = null;
    Path brokenFile = dir.resolve("topics/kafka/broken/topic.json");
    Files.writeString(brokenFile, "{oops");
    Path badConfigFile = dir.resolve("topics/kafka/badconfig/topic.json");
    Files.writeString(badConfigFile, Files.readString(badConfigFile).replace("1000", "soon"));

    kelp.restart();
    admin = kelp.admin();
    assertEquals(
        Set.of("kept", "broken", "badconfig"),
        admin.listTopics().names().get(),
        "listed, as Kafka lists a topic whose partitions are offline");
    Map<String, TopicDescription> described =
        admin.describeTopics(List.of("kept")).allTopicNames().get();
    assertEquals(1, described.get("kept").partitions().size(), "the others are served");
    ExecutionException unserved =
        assertThrows(
            ExecutionException.class,
            () -> admin.describeTopics(List.of("broken")).allTopicNames().get());
    assertInstanceOf(LeaderNotAvailableException.class, cause(unserved));
    try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
      c.assign(List.of(new TopicPartition("kept", 0)));
      ConsumerRecords<String, String> got = c.poll(Duration.ofSeconds(10));
      assertEquals(1, got.count());
    }
    for (String name : List.of("broken", "badconfig")) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get());
      assertInstanceOf(TopicExistsException.class, cause(e));
      assertTrue(cause(e).getMessage().contains("not served"), cause(e).getMessage());
    }
    try (KafkaProducer<String, String> p = kelp.producer(Map.of("max.block.ms", 2000))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class, () -> p.send(new ProducerRecord<>("broken", "v")).get());
      assertInstanceOf(org.apache.kafka.common.errors.TimeoutException.class, cause(e));
    }
    assertEquals("{oops", Files.readString(brokenFile), "nothing wrote over it");

    admin.deleteTopics(List.of("broken")).all().get();
    assertFalse(Files.exists(dir.resolve("topics/kafka/broken")));
    admin.createTopics(List.of(new NewTopic("broken", 2, (short) 1))).all().get();
    assertEquals(
        2,
        admin
            .describeTopics(List.of("broken"))
            .allTopicNames()
            .get()
            .get("broken")
            .partitions()
            .size());
  }

  @Test
  void aTopicWithAPartitionThatCannotBeOpenedIsLeftOutAndTheOthersServed() throws Exception {
    admin
        .createTopics(
            List.of(new NewTopic("fine", 1, (short) 1), new NewTopic("damaged", 2, (short) 1)))
        .all()
        .get();
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      p.send(new ProducerRecord<>("fine", "k", "v")).get();
      p.send(new ProducerRecord<>("damaged", 1, "k", "v")).get();
    }
    admin.close();
    admin = null;
    Path meta = secondPartitionMeta("damaged");
    Files.writeString(meta, "not json");

    kelp.restart();
    admin = kelp.admin();
    assertEquals(Set.of("fine", "damaged"), admin.listTopics().names().get());
    try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
      c.assign(List.of(new TopicPartition("fine", 0)));
      assertEquals(1, c.poll(Duration.ofSeconds(10)).count(), "the other topic is served");
    }
    ExecutionException refused =
        assertThrows(
            ExecutionException.class,
            () -> admin.createTopics(List.of(new NewTopic("damaged", 1, (short) 1))).all().get());
    assertInstanceOf(TopicExistsException.class, cause(refused));
    assertTrue(
        cause(refused).getMessage().contains("partition 1")
            && cause(refused).getMessage().contains("could not be opened"),
        cause(refused).getMessage());
    assertEquals("not json", Files.readString(meta), "nothing wrote over it");
    admin.deleteTopics(List.of("damaged")).all().get();
    assertFalse(Files.exists(dir.resolve("topics/kafka/damaged")));
  }

  /**
   * A topic left out because a partition could not be opened is tried again while the broker runs:
   * once the partition opens (here, its damaged file put back), the topic is served, with its
   * records, without a restart.
   */
  @Test
  void aLeftOutTopicIsServedOnceItsPartitionOpensAgain() throws Exception {
    admin.createTopics(List.of(new NewTopic("mended", 2, (short) 1))).all().get();
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      p.send(new ProducerRecord<>("mended", 1, "k", "before")).get();
    }
    admin.close();
    admin = null;
    Path meta = secondPartitionMeta("mended");
    String good = Files.readString(meta);
    Files.writeString(meta, "not json");

    kelp.restart();
    admin = kelp.admin();
    ExecutionException refused =
        assertThrows(
            ExecutionException.class,
            () -> admin.createTopics(List.of(new NewTopic("mended", 1, (short) 1))).all().get());
    assertTrue(cause(refused).getMessage().contains("not served"), cause(refused).getMessage());

    Files.writeString(meta, good);
    assertEquals(List.of("before"), valuesOnceServed(new TopicPartition("mended", 1)));
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      assertEquals(1, p.send(new ProducerRecord<>("mended", 1, "k", "after")).get().offset());
    }
  }

  /**
   * A topic left out because its file could not be read or its configs used is read again while the
   * broker runs: once the file is put right, the topic is served, with its records and configs,
   * without a restart.
   */
  @Test
  void aTopicWhoseFileIsRepairedIsServedWithoutARestart() throws Exception {
    admin
        .createTopics(
            List.of(
                new NewTopic("torn", 1, (short) 1),
                new NewTopic("misconfigured", 1, (short) 1)
                    .configs(Map.of("retention.ms", "86400000"))))
        .all()
        .get();
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      p.send(new ProducerRecord<>("torn", 0, "k", "torn-before")).get();
      p.send(new ProducerRecord<>("misconfigured", 0, "k", "misconfigured-before")).get();
    }
    admin.close();
    admin = null;
    Path tornFile = dir.resolve("topics/kafka/torn/topic.json");
    String tornGood = Files.readString(tornFile);
    Files.writeString(tornFile, tornGood.substring(0, tornGood.length() / 2));
    Path configFile = dir.resolve("topics/kafka/misconfigured/topic.json");
    String configGood = Files.readString(configFile);
    Files.writeString(configFile, configGood.replace("86400000", "a day"));

    kelp.restart();
    admin = kelp.admin();
    for (String name : List.of("torn", "misconfigured")) {
      ExecutionException unserved =
          assertThrows(
              ExecutionException.class,
              () -> admin.describeTopics(List.of(name)).allTopicNames().get());
      assertInstanceOf(LeaderNotAvailableException.class, cause(unserved), name);
    }

    Files.writeString(tornFile, tornGood);
    Files.writeString(configFile, configGood);
    for (String name : List.of("torn", "misconfigured")) {
      assertEquals(List.of(name + "-before"), valuesOnceServed(new TopicPartition(name, 0)), name);
    }
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "misconfigured");
    assertEquals(
        "86400000",
        admin
            .describeConfigs(List.of(resource))
            .all()
            .get()
            .get(resource)
            .get("retention.ms")
            .value());
    try (KafkaProducer<String, String> p = kelp.producer(Map.of())) {
      assertEquals(1, p.send(new ProducerRecord<>("torn", 0, "k", "after")).get().offset());
    }
  }

  /**
   * The values read from a partition of a topic left out, polling until some come or a few of the
   * broker's retries of left-out topics have passed.
   */
  private List<String> valuesOnceServed(TopicPartition tp) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
      c.assign(List.of(tp));
      long deadline = System.currentTimeMillis() + 4 * Broker.LEFT_OUT_RETRY_MS;
      while (values.isEmpty() && System.currentTimeMillis() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
    }
    return values;
  }

  /** The {@code partition.meta} file of partition 1 of a two-partition topic. */
  private Path secondPartitionMeta(String topic) throws IOException {
    try (Stream<Path> files = Files.walk(dir.resolve("topics/kafka/" + topic))) {
      return files
          .filter(f -> f.getFileName().toString().equals("partition.meta"))
          .filter(f -> f.getParent().getFileName().toString().equals("1260-2520"))
          .findFirst()
          .orElseThrow();
    }
  }
}
