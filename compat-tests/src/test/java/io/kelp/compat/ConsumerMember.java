package io.kelp.compat;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * One member of a consumer group as an application writes it: subscribe, poll, process each record,
 * commitSync what was processed after every poll and before giving a partition up. It reports what
 * it does to {@link Events}, so a test can check the whole group's consumption afterwards.
 *
 * <p>{@link #main} runs a member in a JVM of its own, which a test can kill with SIGKILL: it writes
 * its events to standard output, one line each, and closes its consumer when its standard input
 * ends.
 */
final class ConsumerMember implements AutoCloseable {
  /** What a member reports; partitions are those of the member's one topic. */
  interface Events {
    void assigned(String member, Collection<Integer> partitions);

    void revoked(String member, Collection<Integer> partitions);

    void lost(String member, Collection<Integer> partitions);

    void consumed(String member, int partition, long offset, String value);

    /**
     * Sent before the commit request: the commit may land even if the member dies before it is
     * answered.
     */
    void committing(String member, Map<Integer, Long> offsets);

    void committed(String member, Map<Integer, Long> offsets);

    void failed(String member, String what);
  }

  private final String name;
  private final String topic;
  private final Map<String, Object> config;
  private final Events events;

  /** Offsets processed but not yet committed, by partition: the next offset to consume. */
  private final Map<Integer, Long> pending = new HashMap<>();

  private final Thread thread;
  private final AtomicReference<Throwable> error = new AtomicReference<>();
  private volatile boolean stopping;

  private ConsumerMember(String name, String topic, Map<String, Object> config, Events events) {
    this.name = name;
    this.topic = topic;
    this.config = Map.copyOf(config);
    this.events = events;
    this.thread = new Thread(this::runCatching, "member-" + name);
  }

  /**
   * Starts a member on a thread of this JVM.
   *
   * @param config the consumer's settings beyond those of {@link Clients#consumer}, with group.id
   */
  static ConsumerMember start(
      String name, String bootstrap, String topic, Map<String, Object> config, Events events) {
    Map<String, Object> all = new HashMap<>(config);
    all.put("bootstrap.servers", bootstrap);
    ConsumerMember member = new ConsumerMember(name, topic, all, events);
    member.thread.start();
    return member;
  }

  /** Stops polling and closes the consumer: a member that leaves the group the ordinary way. */
  @Override
  public void close() {
    stopping = true;
    try {
      thread.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      throw new AssertionError("member " + name + " did not close within 60 s");
    }
    if (error.get() != null) {
      throw new AssertionError("member " + name + " failed", error.get());
    }
  }

  String name() {
    return name;
  }

  private void runCatching() {
    try {
      run();
    } catch (Throwable t) {
      error.set(t);
      events.failed(name, t.toString());
    }
  }

  private void run() {
    String bootstrap = (String) config.get("bootstrap.servers");
    try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap, config)) {
      consumer.subscribe(List.of(topic), new Rebalances(consumer));
      while (!stopping) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          events.consumed(name, r.partition(), r.offset(), r.value());
          pending.put(r.partition(), r.offset() + 1);
        }
        commit(consumer, pending.keySet());
      }
      // close() gives the partitions up and calls onPartitionsRevoked, which commits
    }
  }

  /** Commits what was processed of {@code partitions}; a failed commit is reported, not thrown. */
  private void commit(KafkaConsumer<String, String> consumer, Collection<Integer> partitions) {
    Map<Integer, Long> offsets = new TreeMap<>();
    for (Integer p : partitions) {
      offsets.put(p, pending.get(p));
    }
    if (offsets.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> commit = new LinkedHashMap<>();
    offsets.forEach((p, o) -> commit.put(new TopicPartition(topic, p), new OffsetAndMetadata(o)));
    events.committing(name, offsets);
    try {
      consumer.commitSync(commit);
      events.committed(name, offsets);
      offsets.keySet().forEach(pending::remove);
    } catch (KafkaException e) {
      // a rebalance under way or a fenced member: the partitions go to another member, which
      // starts from the last commit that succeeded
      events.failed(name, "commit " + offsets + ": " + e);
    }
  }

  private final class Rebalances implements ConsumerRebalanceListener {
    private final KafkaConsumer<String, String> consumer;

    Rebalances(KafkaConsumer<String, String> consumer) {
      this.consumer = consumer;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      events.assigned(name, numbers(partitions));
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      List<Integer> given = numbers(partitions);
      commit(consumer, given.stream().filter(pending::containsKey).toList());
      given.forEach(pending::remove);
      events.revoked(name, given);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      List<Integer> given = numbers(partitions);
      given.forEach(pending::remove);
      events.lost(name, given);
    }
  }

  private static List<Integer> numbers(Collection<TopicPartition> partitions) {
    return partitions.stream().map(TopicPartition::partition).sorted().toList();
  }

  /**
   * Runs one member in this JVM until standard input ends.
   *
   * <p>Arguments: member name, bootstrap address, topic, then consumer settings as {@code
   * key=value}.
   */
  public static void main(String[] args) throws Exception {
    Map<String, Object> config = new HashMap<>();
    for (int i = 3; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      config.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    LineEvents out = new LineEvents();
    ConsumerMember member = start(args[0], args[1], args[2], config, out);
    drain(System.in);
    member.close();
    out.line("closed");
    System.exit(0);
  }

  private static void drain(InputStream in) throws IOException {
    byte[] buffer = new byte[256];
    while (in.read(buffer) >= 0) {
      // the parent closes our standard input to stop us
    }
  }

  /**
   * Writes events as lines that {@link ConsumerMemberProcess} parses. Each line ends with " ." so
   * that the parent can tell a whole line from one cut short by SIGKILL. Lines are flushed before
   * every commit, so the parent knows every record a commit covers.
   */
  static final class LineEvents implements Events {
    private final Writer out =
        new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));

    @Override
    public synchronized void assigned(String member, Collection<Integer> partitions) {
      lineAndFlush("assigned " + list(partitions));
    }

    @Override
    public synchronized void revoked(String member, Collection<Integer> partitions) {
      lineAndFlush("revoked " + list(partitions));
    }

    @Override
    public synchronized void lost(String member, Collection<Integer> partitions) {
      lineAndFlush("lost " + list(partitions));
    }

    @Override
    public synchronized void consumed(String member, int partition, long offset, String value) {
      write("consumed " + partition + " " + offset + " " + value);
    }

    @Override
    public synchronized void committing(String member, Map<Integer, Long> offsets) {
      lineAndFlush("committing " + offsets(offsets));
    }

    @Override
    public synchronized void committed(String member, Map<Integer, Long> offsets) {
      lineAndFlush("committed " + offsets(offsets));
    }

    @Override
    public synchronized void failed(String member, String what) {
      lineAndFlush("failed " + what.replace('\n', ' '));
    }

    synchronized void line(String text) {
      lineAndFlush(text);
    }

    private void lineAndFlush(String text) {
      write(text);
      try {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void write(String text) {
      try {
        out.write(text);
        out.write(" .\n");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static String list(Collection<Integer> partitions) {
      return partitions.isEmpty()
          ? "-"
          : partitions.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static String offsets(Map<Integer, Long> offsets) {
      return offsets.entrySet().stream()
          .map(e -> e.getKey() + ":" + e.getValue())
          .collect(Collectors.joining(","));
    }
  }
}
