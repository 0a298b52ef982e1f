package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three Java consumers share a six-partition topic while a producer writes numbered records; one
 * member leaves with close(), one crashes (SIGKILL of its JVM: no LeaveGroup, no last commit), one
 * joins. Every record is consumed, and a record is consumed twice only when its first reader had
 * not committed it before it lost the partition (see {@link ConsumptionLedger}). The group's
 * committed offsets end at the log end offsets.
 *
 * <p>With static membership the crashed member comes back under its group.instance.id within its
 * session and gets its partitions back while the others keep theirs, without a rebalance.
 */
class GroupConsumerCompatTest {
  private static final int PARTITIONS = 6;
  private static final Duration SETTLE = Duration.ofSeconds(90);

  /** A static member that closes stays in the group for its whole session; keep it short too. */
  private static final int STATIC_SESSION_TIMEOUT_MS = 10_000;

  /** How the members join. */
  enum Protocol {
    /** Classic protocol, the client's default assignors (range, then cooperative-sticky). */
    CLASSIC,
    /** Classic protocol, incremental rebalances. */
    COOPERATIVE_STICKY,
    /** Classic protocol, default assignors, every member with a group.instance.id. */
    STATIC,
    /** KIP-848: the broker assigns; its session timeout (45 s by default) detects the crash. */
    CONSUMER
  }

  private static KelpProcess kelp;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("GroupConsumerCompatTest");
  }

  @AfterAll
  static void stopBroker() {
    if (kelp != null) {
      try (KelpProcess broker = kelp) {
        broker.stop();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void membersLeaveCrashAndJoinWithoutLosingRecords(Protocol protocol) throws Exception {
    long started = System.nanoTime();
    String name = protocol.name().toLowerCase().replace('_', '-');
    String topic = "group-members-" + name;
    String group = "group-members-" + name;
    try (Admin admin = Clients.admin(kelp.bootstrap())) {
      Groups.createTopic(admin, topic, PARTITIONS);
    }
    ConsumptionLedger ledger = new ConsumptionLedger();
    List<ConsumerMember> inProcess = new ArrayList<>();
    List<ConsumerMemberProcess> children = new ArrayList<>();
    try (NumberedProducer producer = new NumberedProducer(kelp.bootstrap(), topic)) {
      // a first, alone: the first member to join leads the classic group
      inProcess.add(member("a", protocol, group, topic, ledger));
      awaitShared(ledger, List.of("a"), "a alone");
      inProcess.add(member("b", protocol, group, topic, ledger));
      ConsumerMemberProcess c = child("c", "c", protocol, group, topic, ledger);
      children.add(c);
      awaitShared(ledger, List.of("a", "b", "c"), "a, b and c");
      awaitProgress(ledger, producer);

      Set<Integer> ofC = ledger.ownership(List.of("c")).get("c");
      int changesOfA = ledger.assignmentChanges("a");
      int changesOfB = ledger.assignmentChanges("b");
      c.kill();
      List<String> live = new ArrayList<>(List.of("a", "b"));
      if (protocol == Protocol.STATIC) {
        children.add(child("c2", "c", protocol, group, topic, ledger));
        live.add("c2");
        awaitShared(ledger, live, "c back as c2");
        awaitProgress(ledger, producer);
        assertEquals(ofC, ledger.ownership(List.of("c2")).get("c2"), "c2 has the partitions of c");
        assertEquals(changesOfA, ledger.assignmentChanges("a"), "a saw no rebalance");
        assertEquals(changesOfB, ledger.assignmentChanges("b"), "b saw no rebalance");
      } else {
        awaitShared(ledger, live, "a and b after c crashed");
        awaitProgress(ledger, producer);
      }

      inProcess.remove(0).close();
      live.remove("a");
      awaitShared(ledger, live, "after a left");
      inProcess.add(member("d", protocol, group, topic, ledger));
      live.add("d");
      awaitShared(ledger, live, "after d joined");
      awaitProgress(ledger, producer);

      Map<Integer, List<String>> produced = producer.finish();
      Map<Integer, Long> ends = new TreeMap<>();
      produced.forEach((p, values) -> ends.put(p, (long) values.size()));
      Groups.await(
          SETTLE,
          "the group commits the end offsets " + ends,
          () -> ledger.committedTo(ends),
          ledger::toString);
      for (ConsumerMember m : inProcess) {
        m.close();
      }
      for (ConsumerMemberProcess child : children) {
        child.close();
      }
      Map<Integer, Integer> duplicates = ledger.check(produced);
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        assertEquals(ends, new TreeMap<>(Groups.committed(admin, group)), "committed offsets");
      }
      System.out.printf(
          "GroupConsumerCompatTest %s: produced %s, read twice %s, %d s%n",
          protocol, ends, duplicates, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    } finally {
      for (ConsumerMemberProcess child : children) {
        child.kill();
      }
      for (ConsumerMember m : inProcess) {
        m.close();
      }
    }
  }

  private static Map<String, Object> config(Protocol protocol, String group, String instanceId) {
    Map<String, Object> config =
        protocol == Protocol.CONSUMER ? Groups.consumerProtocol(group) : Groups.classic(group);
    if (protocol == Protocol.COOPERATIVE_STICKY) {
      config.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          CooperativeStickyAssignor.class.getName());
    }
    if (protocol == Protocol.STATIC) {
      config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
      config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, STATIC_SESSION_TIMEOUT_MS);
    }
    return config;
  }

  private static ConsumerMember member(
      String name, Protocol protocol, String group, String topic, ConsumptionLedger ledger) {
    return ConsumerMember.start(
        name, kelp.bootstrap(), topic, config(protocol, group, name), ledger);
  }

  private static ConsumerMemberProcess child(
      String name,
      String instanceId,
      Protocol protocol,
      String group,
      String topic,
      ConsumptionLedger ledger) {
    return ConsumerMemberProcess.start(
        name, kelp.bootstrap(), topic, config(protocol, group, instanceId), ledger);
  }

  private static void awaitShared(ConsumptionLedger ledger, List<String> members, String when) {
    Groups.await(
        SETTLE,
        "members " + members + " share all " + PARTITIONS + " partitions (" + when + ")",
        () -> ledger.sharedBy(members, PARTITIONS),
        () -> "ownership " + ledger.ownership(members) + "; " + ledger);
  }

  /** Waits until the group has read everything acknowledged so far: the group makes progress. */
  private static void awaitProgress(ConsumptionLedger ledger, NumberedProducer producer) {
    Map<Integer, Long> target = producer.lastAcknowledged();
    Groups.await(
        SETTLE,
        "the group consumes up to " + target,
        () -> ledger.consumedTo(target),
        ledger::toString);
  }

  /**
   * Writes numbered records to every partition in turn, about 300 a second, until finished. The
   * producer is idempotent, so the acknowledged values, by offset, are the partition's log.
   */
  private static final class NumberedProducer implements AutoCloseable {
    private final Map<Integer, ConcurrentSkipListMap<Long, String>> acknowledged = new HashMap<>();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private volatile boolean running = true;

    NumberedProducer(String bootstrap, String topic) {
      for (int p = 0; p < PARTITIONS; p++) {
        acknowledged.put(p, new ConcurrentSkipListMap<>());
      }
      producer = Clients.producer(bootstrap, Map.of("linger.ms", 5));
      thread = new Thread(() -> send(topic), "numbered-producer");
      thread.start();
    }

    private void send(String topic) {
      try {
        for (int n = 0; running; n++) {
          for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            String value = p + ":" + n;
            producer.send(
                new ProducerRecord<>(topic, p, "k" + n, value),
                (metadata, e) -> {
                  if (e != null) {
                    error.compareAndSet(null, e);
                  } else {
                    acknowledged.get(partition).put(metadata.offset(), value);
                  }
                });
          }
          Thread.sleep(20);
        }
      } catch (Throwable t) {
        error.compareAndSet(null, t);
      }
    }

    /** The highest acknowledged offset of each partition. */
    Map<Integer, Long> lastAcknowledged() {
      Map<Integer, Long> out = new TreeMap<>();
      acknowledged.forEach((p, values) -> out.put(p, values.isEmpty() ? -1L : values.lastKey()));
      return out;
    }

    /** Stops sending and returns each partition's log: the values at offsets 0, 1, 2... */
    Map<Integer, List<String>> finish() throws InterruptedException {
      running = false;
      thread.join(30_000);
      producer.flush();
      if (error.get() != null) {
        throw new AssertionError("the producer failed", error.get());
      }
      Map<Integer, List<String>> logs = new TreeMap<>();
      acknowledged.forEach(
          (p, values) -> {
            List<String> log = new ArrayList<>(values.values());
            long last = values.isEmpty() ? -1L : values.lastKey();
            assertEquals(
                values.size() - 1L, last, "partition " + p + " acknowledged dense offsets from 0");
            logs.put(p, log);
          });
      return logs;
    }

    @Override
    public void close() {
      running = false;
      producer.close(Duration.ofSeconds(30));
    }
  }
}
