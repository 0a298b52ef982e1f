package io.kelp.gateway.coordinator.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 */
class ConsumerProtocolClientTest {
  @TempDir Path dir;

  @Test
  void threeMembersSixPartitionsOneLeavesOneJoins() throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put(BrokerConfig.LISTEN, "127.0.0.1:0");
    settings.put(BrokerConfig.DATA_DIR, dir.toString());
    settings.put(BrokerConfig.NETWORK_THREADS, "2");
    settings.put(BrokerConfig.METRICS_LISTEN, "off");
    settings.put(BrokerConfig.GROUP_CONSUMER_SESSION_TIMEOUT_MS, "10000");
    settings.put(BrokerConfig.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS, "300");
    try (Broker broker = Broker.start(BrokerConfig.of(settings))) {
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
}
