import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The cost of consumer-group operations, the same way on any broker:
 *
 * <ul>
 *   <li>commit: one consumer with every partition of TOPIC assigned commits an offset for each of
 *       them with commitSync, COMMITS times; prints commits/s and the p50 and p99 latency;
 *   <li>rebalance: three consumers subscribe to TOPIC in a new group (classic protocol, the Java
 *       client's default assignors, session timeout 10 s) and poll until every partition is
 *       assigned; then a fourth joins and all poll until the partitions are spread over four;
 *       prints how long each took.
 * </ul>
 *
 * Output, one line: "commits_per_s p50_ms p99_ms join3_ms join4th_ms". The broker's
 * group.initial.rebalance.delay.ms counts in join3 (both brokers run with 0 in the benchmark).
 *
 * <p>Run as a source file: java -cp 'kafka-libs/*' GroupOps.java BOOTSTRAP TOPIC COMMITS
 */
public final class GroupOps {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int commits = Integer.parseInt(args[2]);
    double[] commit = commitLatency(bootstrap, topic, commits);
    long[] rebalance = rebalance(bootstrap, topic);
    System.out.printf(
        "%.0f %.2f %.2f %d %d%n", commit[0], commit[1], commit[2], rebalance[0], rebalance[1]);
  }

  private static Properties config(String bootstrap, String group) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return p;
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> c, String topic) {
    List<TopicPartition> out = new ArrayList<>();
    c.partitionsFor(topic).forEach(i -> out.add(new TopicPartition(topic, i.partition())));
    return out;
  }

  /** commits/s, p50 ms, p99 ms. */
  private static double[] commitLatency(String bootstrap, String topic, int commits) {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(config(bootstrap, "bench-commit-" + System.nanoTime()))) {
      List<TopicPartition> parts = partitions(c, topic);
      c.assign(parts);
      long[] nanos = new long[commits];
      long start = System.nanoTime();
      for (int i = 0; i < commits; i++) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : parts) {
          offsets.put(tp, new OffsetAndMetadata(i));
        }
        long t = System.nanoTime();
        c.commitSync(offsets, Duration.ofSeconds(30));
        nanos[i] = System.nanoTime() - t;
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      Arrays.sort(nanos);
      return new double[] {
        commits / seconds,
        nanos[commits / 2] / 1e6,
        nanos[Math.min(commits - 1, (int) Math.ceil(commits * 0.99) - 1)] / 1e6
      };
    }
  }

  /** ms until three members share every partition, then ms until a fourth has its share. */
  private static long[] rebalance(String bootstrap, String topic) {
    String group = "bench-rebalance-" + System.nanoTime();
    List<KafkaConsumer<byte[], byte[]>> members = new ArrayList<>();
    try {
      long start = System.nanoTime();
      for (int i = 0; i < 3; i++) {
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config(bootstrap, group));
        c.subscribe(List.of(topic));
        members.add(c);
      }
      int total = partitions(members.get(0), topic).size();
      awaitSpread(members, total);
      long join3 = (System.nanoTime() - start) / 1_000_000;
      start = System.nanoTime();
      KafkaConsumer<byte[], byte[]> fourth = new KafkaConsumer<>(config(bootstrap, group));
      fourth.subscribe(List.of(topic));
      members.add(fourth);
      awaitSpread(members, total);
      long join4 = (System.nanoTime() - start) / 1_000_000;
      return new long[] {join3, join4};
    } finally {
      members.forEach(KafkaConsumer::close);
    }
  }

  /** Polls every member in turn until each owns a share and together they own every partition. */
  private static void awaitSpread(List<KafkaConsumer<byte[], byte[]>> members, int total) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      Set<TopicPartition> owned = new HashSet<>();
      boolean everyoneHasSome = true;
      for (KafkaConsumer<byte[], byte[]> c : members) {
        c.poll(Duration.ofMillis(20));
        owned.addAll(c.assignment());
        everyoneHasSome &= !c.assignment().isEmpty();
      }
      if (everyoneHasSome && owned.size() == total) {
        return;
      }
    }
    throw new IllegalStateException("the group did not settle within 120 s");
  }
}
