package io.kelp.gateway.coordinator.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.message.FindCoordinatorRequest;
import io.kelp.codec.message.FindCoordinatorResponse;
import io.kelp.codec.message.OffsetFetchRequest;
import io.kelp.codec.message.OffsetFetchResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.ApiHandlers;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.server.Broker;
import io.kelp.gateway.server.BrokerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java consumer with group.protocol=consumer against a broker in this JVM: three members over
 * six partitions, one leaves, one joins, and the assignment spreads and moves each time.
 *
 * <p>FindCoordinator and OffsetFetch are stood in for here (this broker, nothing committed) where
 * the broker does not serve them yet, so the test needs only the consumer protocol itself.
 */
class ConsumerProtocolClientTest {
  @TempDir Path dir;

  @Test
  void threeMembersSixPartitionsOneLeavesOneJoins() throws Exception {
    ApiHandlers handlers = ApiHandlers.standard();
    if (handlers.get(FindCoordinatorRequest.API_KEY) == null) {
      handlers.register(new ThisBrokerCoordinates());
    }
    if (handlers.get(OffsetFetchRequest.API_KEY) == null) {
      handlers.register(new NothingCommitted());
    }
    Map<String, String> settings = new HashMap<>();
    settings.put(BrokerConfig.LISTEN, "127.0.0.1:0");
    settings.put(BrokerConfig.DATA_DIR, dir.toString());
    settings.put(BrokerConfig.NETWORK_THREADS, "2");
    GroupConfig d = GroupConfig.defaults();
    GroupConfig config =
        new GroupConfig(
            d.initialRebalanceDelayMs(),
            d.minSessionTimeoutMs(),
            d.maxSessionTimeoutMs(),
            d.maxGroupSize(),
            d.offsetsRetentionMs(),
            d.offsetsRetentionCheckIntervalMs(),
            10_000,
            300,
            d.consumerAssignors());
    try (Broker broker = Broker.start(BrokerConfig.of(settings), handlers);
        GroupCoordinator groups =
            new GroupCoordinator(
                new InMemoryGroupStore(),
                broker.services().topics(),
                config,
                System::currentTimeMillis)) {
      ConsumerGroups.register(groups);
      groups.load();
      broker.services().groups(groups);
      String bootstrap = "127.0.0.1:" + broker.address().port();
      try (Admin admin = admin(bootstrap)) {
        admin.createTopics(List.of(new NewTopic("orders", 6, (short) 1))).all().get();
        produce(bootstrap, 600);
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          members.add(Member.start(bootstrap, "c" + i));
        }
        awaitSpread(members, 2);
        ConsumerGroupDescription described =
            admin.describeConsumerGroups(List.of("g")).all().get().get("g");
        assertEquals(GroupState.STABLE, described.groupState());
        assertEquals(3, described.members().size());

        Member leaving = members.remove(0);
        leaving.stop();
        awaitSpread(members, 3);

        members.add(Member.start(bootstrap, "c3"));
        awaitSpread(members, 2);
        await(() -> members.stream().mapToInt(m -> m.records.size()).sum() > 0, "records");
        for (Member m : members) {
          m.stop();
        }
        await(
            () ->
                admin.describeConsumerGroups(List.of("g")).all().get().get("g").members().isEmpty(),
            "every member left");
      }
    }
  }

  private static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    return Admin.create(p);
  }

  private static void produce(String bootstrap, int count) throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>("orders", i % 6, "k" + i, "v" + i));
      }
      producer.flush();
    }
  }

  /** Waits until the members own every partition, each exactly {@code each} of them. */
  private static void awaitSpread(List<Member> members, int each) throws Exception {
    await(
        () -> {
          Set<TopicPartition> all = new HashSet<>();
          for (Member m : members) {
            if (m.assignment.size() != each) {
              return false;
            }
            all.addAll(m.assignment);
          }
          return all.size() == 6;
        },
        "each of " + members.size() + " members owning " + each + " partitions");
  }

  interface Check {
    boolean ok() throws Exception;
  }

  private static void await(Check check, String what) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!check.ok()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      Thread.sleep(100);
    }
  }

  /** One consumer polling on its own thread. */
  static final class Member implements Runnable {
    final KafkaConsumer<String, String> consumer;
    final Thread thread;
    final Set<String> records = ConcurrentHashMap.newKeySet();
    volatile Set<TopicPartition> assignment = Set.of();
    volatile boolean stopping;
    volatile Throwable failure;

    private Member(String bootstrap, String clientId) {
      Map<String, Object> p = new HashMap<>();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, "g");
      p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
      consumer = new KafkaConsumer<>(p);
      thread = new Thread(this, "consumer-" + clientId);
    }

    static Member start(String bootstrap, String clientId) {
      Member m = new Member(bootstrap, clientId);
      m.thread.start();
      return m;
    }

    @Override
    public void run() {
      try {
        consumer.subscribe(List.of("orders"));
        while (!stopping) {
          consumer.poll(Duration.ofMillis(100)).forEach(r -> records.add(r.value()));
          assignment = Set.copyOf(consumer.assignment());
        }
      } catch (Throwable t) {
        failure = t;
      } finally {
        consumer.close();
      }
    }

    void stop() throws InterruptedException {
      stopping = true;
      thread.join(30_000);
      assertEquals(null, failure);
    }
  }

  /** FindCoordinator v4-6 for tests: this broker coordinates every key. */
  static final class ThisBrokerCoordinates implements ApiHandler {
    @Override
    public short apiKey() {
      return FindCoordinatorRequest.API_KEY;
    }

    @Override
    public short minVersion() {
      return 4;
    }

    @Override
    public short maxVersion() {
      return 6;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
      FindCoordinatorResponse response = new FindCoordinatorResponse();
      for (String key : ((FindCoordinatorRequest) request).coordinatorKeys()) {
        response
            .coordinators()
            .add(
                new FindCoordinatorResponse.Coordinator()
                    .setKey(key)
                    .setNodeId(ctx.broker().brokerId())
                    .setHost(ctx.broker().advertised().host())
                    .setPort(ctx.broker().advertised().port()));
      }
      return CompletableFuture.completedFuture(response);
    }
  }

  /** OffsetFetch v8-10 for tests: no group has committed anything. */
  static final class NothingCommitted implements ApiHandler {
    @Override
    public short apiKey() {
      return OffsetFetchRequest.API_KEY;
    }

    @Override
    public short minVersion() {
      return 8;
    }

    @Override
    public short maxVersion() {
      return 10;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
      OffsetFetchResponse response = new OffsetFetchResponse();
      for (OffsetFetchRequest.OffsetFetchRequestGroup g : ((OffsetFetchRequest) request).groups()) {
        OffsetFetchResponse.OffsetFetchResponseGroup out =
            new OffsetFetchResponse.OffsetFetchResponseGroup().setGroupId(g.groupId());
        if (g.topics() != null) {
          for (OffsetFetchRequest.OffsetFetchRequestTopics t : g.topics()) {
            OffsetFetchResponse.OffsetFetchResponseTopics topic =
                new OffsetFetchResponse.OffsetFetchResponseTopics()
                    .setName(t.name())
                    .setTopicId(t.topicId());
            for (int p : t.partitionIndexes()) {
              topic
                  .partitions()
                  .add(
                      new OffsetFetchResponse.OffsetFetchResponsePartitions()
                          .setPartitionIndex(p)
                          .setCommittedOffset(-1));
            }
            out.topics().add(topic);
          }
        }
        response.groups().add(out);
      }
      return CompletableFuture.completedFuture(response);
    }
  }
}
