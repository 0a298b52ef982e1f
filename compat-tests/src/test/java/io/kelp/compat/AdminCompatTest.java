package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The admin client: topics, partitions, configs, records, offsets, cluster and log dirs. */
class AdminCompatTest {
  private static final long BASE_TIME = 1_700_000_000_000L;
  private static KelpProcess kelp;
  private static Admin admin;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("AdminCompatTest");
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
  void createTopicWithConfigsThenDescribeIt() {
    String topic = "created-with-configs";
    NewTopic newTopic =
        new NewTopic(topic, 3, (short) 1)
            .configs(
                Map.of(
                    "retention.ms", "3600000",
                    "cleanup.policy", "delete",
                    "max.message.bytes", "2097152"));
    Clients.get(admin.createTopics(List.of(newTopic)).all());

    TopicDescription description =
        Clients.get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    assertEquals(topic, description.name());
    assertFalse(description.isInternal());
    assertEquals(3, description.partitions().size());
    Node broker = onlyNode();
    for (TopicPartitionInfo p : description.partitions()) {
      assertEquals(broker.id(), p.leader().id(), "leader of partition " + p.partition());
      assertEquals(List.of(broker.id()), p.replicas().stream().map(Node::id).toList());
      assertEquals(List.of(broker.id()), p.isr().stream().map(Node::id).toList());
    }

    Config config = topicConfig(topic);
    assertEquals("3600000", config.get("retention.ms").value());
    assertEquals(
        ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, config.get("retention.ms").source());
    assertEquals("delete", config.get("cleanup.policy").value());
    assertEquals("2097152", config.get("max.message.bytes").value());
    assertNotNull(config.get("segment.bytes"), "defaults are described too");
  }

  @Test
  void createExistingTopicFailsWithTopicExists() {
    String topic = "created-twice";
    Clients.createTopic(admin, topic, 1);
    RuntimeException e =
        assertThrows(RuntimeException.class, () -> Clients.createTopic(admin, topic, 1));
    assertInstanceOf(TopicExistsException.class, e);
  }

  @Test
  void validateOnlyChecksButCreatesNothing() {
    String topic = "validated-only";
    NewTopic newTopic = new NewTopic(topic, 2, (short) 1).configs(Map.of("retention.ms", "1000"));
    Clients.get(
        admin.createTopics(List.of(newTopic), new CreateTopicsOptions().validateOnly(true)).all());
    assertFalse(listTopics().contains(topic), "validate-only must not create " + topic);

    NewTopic bad = new NewTopic(topic, 2, (short) 1).configs(Map.of("no.such.config", "1"));
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () ->
                Clients.get(
                    admin
                        .createTopics(List.of(bad), new CreateTopicsOptions().validateOnly(true))
                        .all()));
    assertInstanceOf(InvalidConfigurationException.class, e);
    assertFalse(listTopics().contains(topic));
  }

  @Test
  void createTopicWithAnUnknownConfigFails() {
    NewTopic bad = new NewTopic("bad-config", 1, (short) 1).configs(Map.of("no.such.config", "1"));
    RuntimeException e =
        assertThrows(
            RuntimeException.class, () -> Clients.get(admin.createTopics(List.of(bad)).all()));
    assertInstanceOf(InvalidConfigurationException.class, e);
    assertFalse(listTopics().contains("bad-config"));
  }

  @Test
  void listAndDeleteTopicsReallyDeletesTheData() throws Exception {
    Clients.createTopic(admin, "kept", 1);
    Clients.createTopic(admin, "deleted", 2);
    produce("deleted", 0, 20);
    assertTrue(listTopics().containsAll(Set.of("kept", "deleted")));

    Clients.get(admin.deleteTopics(List.of("deleted")).all());
    eventually("deleted topic leaves the list", () -> !listTopics().contains("deleted"));
    assertTrue(listTopics().contains("kept"));
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () -> Clients.get(admin.describeTopics(List.of("deleted")).allTopicNames()));
    assertInstanceOf(UnknownTopicOrPartitionException.class, e);

    eventually(
        "the name can be reused",
        () -> {
          try {
            Clients.createTopic(admin, "deleted", 1);
            return true;
          } catch (TopicExistsException retry) {
            return false;
          }
        });
    TopicPartition tp = new TopicPartition("deleted", 0);
    long[] end = {-1};
    eventually(
        "the recreated topic answers listOffsets",
        () -> {
          try {
            end[0] = offset(tp, OffsetSpec.latest());
            return true;
          } catch (UnknownTopicOrPartitionException notYet) {
            return false;
          }
        });
    assertEquals(0, end[0], "a recreated topic starts empty");
  }

  @Test
  void createPartitionsAddsPartitionsThatTakeRecords() throws Exception {
    String topic = "grown";
    Clients.createTopic(admin, topic, 1);
    Clients.get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all());
    eventually(
        "describe shows 4 partitions",
        () ->
            Clients.get(admin.describeTopics(List.of(topic)).allTopicNames())
                    .get(topic)
                    .partitions()
                    .size()
                == 4);
    RecordMetadata m = produce(topic, 3, 1);
    assertEquals(3, m.partition());
    assertEquals(0, m.offset());

    RuntimeException shrink =
        assertThrows(
            RuntimeException.class,
            () ->
                Clients.get(
                    admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all()));
    assertInstanceOf(org.apache.kafka.common.errors.InvalidPartitionsException.class, shrink);
  }

  @Test
  void incrementalAlterConfigsSetsAndDeletesTopicConfigs() {
    String topic = "altered";
    Clients.createTopic(admin, topic, 1);
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Clients.get(
        admin
            .incrementalAlterConfigs(
                Map.of(
                    resource,
                    List.of(
                        set("retention.ms", "7200000"),
                        set("retention.bytes", "104857600"),
                        set("cleanup.policy", "compact"),
                        set("max.message.bytes", "524288"),
                        set("segment.bytes", "16777216"),
                        set("message.timestamp.type", "LogAppendTime"))))
            .all());
    Config config = topicConfig(topic);
    assertEquals("7200000", config.get("retention.ms").value());
    assertEquals("104857600", config.get("retention.bytes").value());
    assertEquals("compact", config.get("cleanup.policy").value());
    assertEquals("524288", config.get("max.message.bytes").value());
    assertEquals("16777216", config.get("segment.bytes").value());
    assertEquals("LogAppendTime", config.get("message.timestamp.type").value());

    Clients.get(
        admin
            .incrementalAlterConfigs(
                Map.of(
                    resource,
                    List.of(
                        new AlterConfigOp(
                            new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE))))
            .all());
    ConfigEntry retention = topicConfig(topic).get("retention.ms");
    assertEquals("604800000", retention.value(), "deleted override falls back to the default");
    assertTrue(
        retention.source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
        "source after delete: " + retention.source());
    assertEquals("compact", topicConfig(topic).get("cleanup.policy").value(), "others stay");
  }

  @Test
  void incrementalAlterConfigsRejectsAnUnknownKey() {
    String topic = "altered-badly";
    Clients.createTopic(admin, topic, 1);
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () ->
                Clients.get(
                    admin
                        .incrementalAlterConfigs(
                            Map.of(resource, List.of(set("no.such.config", "1"))))
                        .all()));
    assertInstanceOf(InvalidConfigurationException.class, e);
    assertNotNull(topicConfig(topic).get("retention.ms"), "topic still described");
  }

  @Test
  void deleteRecordsMovesTheLogStartOffset() throws Exception {
    String topic = "truncated";
    Clients.createTopic(admin, topic, 1);
    produce(topic, 0, 50);
    TopicPartition tp = new TopicPartition(topic, 0);
    long low =
        Clients.get(
                admin
                    .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(20)))
                    .lowWatermarks()
                    .get(tp))
            .lowWatermark();
    assertEquals(20, low);
    assertEquals(20, offset(tp, OffsetSpec.earliest()));
    assertEquals(50, offset(tp, OffsetSpec.latest()));
    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
      List<ConsumerRecord<String, String>> read = Clients.readAll(consumer, tp);
      assertEquals(30, read.size());
      assertEquals(20, read.get(0).offset());
      assertEquals("v20", read.get(0).value());
    }
  }

  @Test
  void listOffsetsEarliestLatestTimestampAndMaxTimestamp() throws Exception {
    String topic = "listed-offsets";
    Clients.createTopic(admin, topic, 1);
    TopicPartition tp = new TopicPartition(topic, 0);
    assertEquals(0, offset(tp, OffsetSpec.earliest()), "earliest of an empty partition");
    assertEquals(0, offset(tp, OffsetSpec.latest()), "latest of an empty partition");
    try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
      // timestamps rise by a second per record, except record 7 which is the newest of all
      for (int i = 0; i < 20; i++) {
        long ts = i == 7 ? BASE_TIME + 100_000L : BASE_TIME + i * 1000L;
        producer.send(new ProducerRecord<>(topic, 0, ts, "k" + i, "v" + i));
      }
      producer.flush();
    }
    assertEquals(0, offset(tp, OffsetSpec.earliest()));
    assertEquals(20, offset(tp, OffsetSpec.latest()));
    assertEquals(6, offset(tp, OffsetSpec.forTimestamp(BASE_TIME + 5_500L)));
    // the first offset whose timestamp is at or after the one asked for: record 7, not 12
    assertEquals(7, offset(tp, OffsetSpec.forTimestamp(BASE_TIME + 11_500L)));
    assertEquals(-1, offset(tp, OffsetSpec.forTimestamp(BASE_TIME + 200_000L)), "none that late");
    var max = Clients.get(admin.listOffsets(Map.of(tp, OffsetSpec.maxTimestamp())).all()).get(tp);
    assertEquals(7, max.offset(), "offset of the record with the largest timestamp");
    assertEquals(BASE_TIME + 100_000L, max.timestamp());
  }

  @Test
  void describeClusterShowsThisBroker() {
    DescribeClusterResult cluster = admin.describeCluster();
    Node node = onlyNode();
    assertEquals(kelp.port(), node.port());
    assertEquals("127.0.0.1", node.host());
    String clusterId = Clients.get(cluster.clusterId());
    assertNotNull(clusterId);
    assertFalse(clusterId.isBlank());
    assertEquals(node.id(), Clients.get(cluster.controller()).id(), "controller");
  }

  @Test
  void describeLogDirsListsTheWrittenPartitions() throws Exception {
    String topic = "on-disk";
    Clients.createTopic(admin, topic, 2);
    produce(topic, 1, 100);
    int broker = onlyNode().id();
    Map<String, LogDirDescription> dirs =
        Clients.get(admin.describeLogDirs(List.of(broker)).allDescriptions()).get(broker);
    assertFalse(dirs.isEmpty(), "at least one log dir");
    ReplicaInfo written = null;
    ReplicaInfo empty = null;
    for (LogDirDescription dir : dirs.values()) {
      assertEquals(null, dir.error(), "log dir error");
      written = dir.replicaInfos().getOrDefault(new TopicPartition(topic, 1), written);
      empty = dir.replicaInfos().getOrDefault(new TopicPartition(topic, 0), empty);
    }
    assertNotNull(written, "partition 1 is in a log dir");
    assertNotNull(empty, "partition 0 is in a log dir");
    assertTrue(written.size() > 100 * 2, "size of 100 records: " + written.size());
    assertEquals(0, empty.size(), "size of an empty partition");
  }

  /**
   * Without an authorizer (Kafka's default, and Kelp's only mode so far) the ACL APIs answer
   * SECURITY_DISABLED, which the admin client reports as SecurityDisabledException.
   */
  @Test
  void aclRequestsSayThatSecurityIsDisabled() {
    AclBinding binding =
        new AclBinding(
            new ResourcePattern(ResourceType.TOPIC, "acl-topic", PatternType.LITERAL),
            new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW));
    assertSecurityDisabled(admin.describeAcls(AclBindingFilter.ANY).values());
    assertSecurityDisabled(admin.createAcls(List.of(binding)).all());
    assertSecurityDisabled(admin.deleteAcls(List.of(AclBindingFilter.ANY)).all());
  }

  private static void assertSecurityDisabled(KafkaFuture<?> future) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
    assertInstanceOf(SecurityDisabledException.class, e.getCause(), e.toString());
  }

  private Node onlyNode() {
    var nodes = Clients.get(admin.describeCluster().nodes());
    assertEquals(1, nodes.size(), "brokers in the cluster: " + nodes);
    return nodes.iterator().next();
  }

  private static Set<String> listTopics() {
    return Clients.get(admin.listTopics().names());
  }

  private static Config topicConfig(String topic) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return Clients.get(admin.describeConfigs(List.of(resource)).all()).get(resource);
  }

  private static AlterConfigOp set(String key, String value) {
    return new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
  }

  private static long offset(TopicPartition tp, OffsetSpec spec) {
    return Clients.get(admin.listOffsets(Map.of(tp, spec)).all()).get(tp).offset();
  }

  /** Sends {@code count} records "v<i>" to one partition; returns the last acknowledgement. */
  private static RecordMetadata produce(String topic, int partition, int count) throws Exception {
    RecordMetadata last = null;
    try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
      for (int i = 0; i < count; i++) {
        last =
            producer
                .send(new ProducerRecord<>(topic, partition, "k" + i, "v" + i))
                .get(30, TimeUnit.SECONDS);
      }
    }
    return last;
  }

  /** Waits at most 15 s for a condition that a broker reaches shortly after an admin call. */
  private static void eventually(String what, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail(what + ": not within 15 s");
      }
      Thread.sleep(100);
    }
  }
}
