package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.kelp.seaweed.WeedProcess;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kelp on a real SeaweedFS while an idempotent acks=all producer sends numbered records: SeaweedFS
 * (master, volume server and filer in one {@code weed} process) is SIGKILLed and started again on
 * the same directory and ports, or frozen with SIGSTOP and continued, or the broker is SIGKILLed
 * and started again against the same filer. The producer may meet timeouts and retriable errors
 * meanwhile; afterwards every acknowledged record is read back exactly once, at the offset it was
 * acknowledged with, in send order per partition. The random seed is printed; rerun with {@code
 * -Dcompat.crash.seed=N}.
 */
@Tag("seaweedfs")
class SeaweedFaultTest {
  private static final int PARTITIONS = 3;
  private static final int RESTARTS = 3;

  /**
   * Long enough for a record to wait out a SeaweedFS restart, during which the store retries a
   * write for up to 30 s before the broker answers with an error the producer retries.
   */
  private static final int DELIVERY_TIMEOUT_MS = 180_000;

  private Random random;

  @BeforeEach
  void seed() {
    assumeFalse(
        "kafka".equals(System.getProperty("compat.broker")), "Apache Kafka has no SeaweedFS");
    long seed = Long.getLong("compat.crash.seed", System.nanoTime());
    random = new Random(seed);
    System.out.println(
        "SeaweedFaultTest seed " + seed + " (rerun with -Dcompat.crash.seed=" + seed + ")");
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void acknowledgedRecordsSurviveSeaweedRestarts() throws Exception {
    // Without fsync (the default) a chunk is in the volume server's file, which a SIGKILL keeps.
    survivesSeaweedRestarts("weed-restart");
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void acknowledgedRecordsSurviveSeaweedRestartsWithFsync() throws Exception {
    survivesSeaweedRestarts("weed-restart-fsync", "--seaweed-fsync", "true");
  }

  private void survivesSeaweedRestarts(String topic, String... flags) throws Exception {
    try (KelpProcess kelp = KelpProcess.startOnSeaweed("SeaweedFaultTest-" + topic, flags)) {
      WeedProcess weed = kelp.weed();
      underLoad(
          kelp,
          topic,
          load -> {
            for (int restart = 1; restart <= RESTARTS; restart++) {
              load.awaitProgress(500, "before SeaweedFS restart " + restart);
              Thread.sleep(random.nextInt(2_000));
              int ackedBefore = load.totalAcked();
              long pid = weed.pid();
              weed.kill();
              System.out.println(
                  "SeaweedFS restart "
                      + restart
                      + " (pid "
                      + pid
                      + " SIGKILLed): "
                      + ackedBefore
                      + " acknowledged, "
                      + load.sent()
                      + " sent");
              Thread.sleep(random.nextInt(2_000));
              weed.restart();
            }
          });
      kelp.stop();
    }
  }

  /**
   * The volume server alone (its own process here) SIGKILLed under load and started again a few
   * seconds later, twice: chunk uploads fail and are retried on fresh assignments (the master keeps
   * handing out the dead server until it misses its heartbeats), acks=all waits, and every
   * acknowledged record reads back exactly once.
   */
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void acknowledgedRecordsSurviveVolumeServerRestarts() throws Exception {
    try (KelpProcess kelp =
        KelpProcess.startOnSeaweedWithSeparateVolumeServer("SeaweedFaultTest-volume-restart")) {
      WeedProcess weed = kelp.weed();
      underLoad(
          kelp,
          "volume-restart",
          load -> {
            for (int restart = 1; restart <= 2; restart++) {
              load.awaitProgress(500, "before volume server restart " + restart);
              Thread.sleep(random.nextInt(2_000));
              long pid = weed.volumePid();
              weed.killVolume();
              System.out.println(
                  "volume server restart "
                      + restart
                      + " (pid "
                      + pid
                      + " SIGKILLed): "
                      + load.totalAcked()
                      + " acknowledged, "
                      + load.sent()
                      + " sent");
              Thread.sleep(3_000 + random.nextInt(5_000));
              weed.startVolume();
            }
          });
      kelp.stop();
    }
  }

  /**
   * A slow SeaweedFS: the weed process is stopped (SIGSTOP) and continued (SIGCONT), once for
   * longer than the producer's request timeout, so that acks=all requests time out while their
   * batches wait in the broker and the producer sends them again, and once for longer than the
   * store's own timeouts, so that the broker's writes fail and are retried. Nothing acknowledged is
   * lost or stored twice: the retries stay in the producer's epoch, whose batches the broker
   * recognises.
   */
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void acknowledgedRecordsSurviveAFrozenSeaweed() throws Exception {
    try (KelpProcess kelp = KelpProcess.startOnSeaweed("SeaweedFaultTest-weed-frozen")) {
      WeedProcess weed = kelp.weed();
      underLoad(
          kelp,
          "weed-frozen",
          load -> {
            int[] freezeSeconds = {15 + random.nextInt(6), 35 + random.nextInt(11)};
            for (int seconds : freezeSeconds) {
              load.awaitProgress(500, "before freezing SeaweedFS");
              int ackedBefore = load.totalAcked();
              signal(weed.pid(), "STOP");
              try {
                System.out.println(
                    "SeaweedFS frozen for "
                        + seconds
                        + " s: "
                        + ackedBefore
                        + " acknowledged, "
                        + load.sent()
                        + " sent");
                Thread.sleep(seconds * 1000L);
              } finally {
                signal(weed.pid(), "CONT");
              }
            }
          });
      kelp.stop();
    }
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void acknowledgedRecordsSurviveBrokerKillsOnSeaweed() throws Exception {
    try (KelpProcess kelp = KelpProcess.startOnSeaweed("SeaweedFaultTest-broker")) {
      underLoad(
          kelp,
          "broker-kill",
          load -> {
            for (int kill = 1; kill <= RESTARTS; kill++) {
              load.awaitProgress(500, "before broker kill " + kill);
              Thread.sleep(random.nextInt(2_000));
              int ackedBefore = load.totalAcked();
              kelp.kill();
              System.out.println(
                  "broker kill "
                      + kill
                      + ": "
                      + ackedBefore
                      + " acknowledged, "
                      + load.sent()
                      + " sent");
              Thread.sleep(random.nextInt(1_000));
              kelp.restart();
            }
          });
      kelp.stop();
      // everything the restarts needed came from the filer
      assertEquals(List.of(), list(kelp.dataDir()), "files in the broker's data directory");
    }
  }

  /** What a test does to the broker or SeaweedFS while the load runs. */
  private interface Faults {
    void inject(NumberedLoad load) throws Exception;
  }

  /**
   * Runs an idempotent acks=all producer of numbered records on a new topic while {@code faults}
   * happen, waits for the load to make progress after them, and checks that every acknowledged
   * record reads back exactly once, at its offset, in order.
   */
  private static void underLoad(KelpProcess kelp, String topic, Faults faults) throws Exception {
    createTopic(kelp, topic);
    try (NumberedLoad load =
        new NumberedLoad(
            kelp.bootstrap(),
            topic,
            PARTITIONS,
            NumberedLoad.resilientProducer(DELIVERY_TIMEOUT_MS))) {
      faults.inject(load);
      load.awaitProgress(3_000, "after the faults");
      load.finish();
      try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
        load.verify(consumer);
      }
    }
  }

  /** Sends {@code kill -<name> pid}. */
  private static void signal(long pid, String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + name + " " + pid);
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void brokerStartedBeforeSeaweedWaitsForIt() throws Exception {
    String topic = "start-first";
    try (KelpProcess kelp = KelpProcess.startOnSeaweed("SeaweedFaultTest-startup")) {
      createTopic(kelp, topic);
      send(kelp, topic, "before");
      kelp.stop();
      WeedProcess weed = kelp.weed();
      weed.stop();
      // SeaweedFS comes back a few seconds after the broker has started: the broker waits for it
      // instead of exiting.
      Thread starter =
          new Thread(
              () -> {
                try {
                  Thread.sleep(6_000);
                  weed.restart();
                } catch (IOException | InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      starter.start();
      kelp.restart();
      starter.join();
      assertTrue(
          Files.readString(kelp.log()).contains("waiting for the SeaweedFS filer"),
          "the broker started before the filer answered; log " + kelp.log());
      send(kelp, topic, "after");
      try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
        List<String> values =
            Clients.readAll(consumer, new TopicPartition(topic, 0)).stream()
                .map(ConsumerRecord::value)
                .toList();
        assertEquals(List.of("before", "after"), values);
      }
      kelp.stop();
    }
  }

  /**
   * A group and the only partition whose last writes went to a volume server that is down when the
   * broker starts: the broker starts anyway, answers requests for the group
   * COORDINATOR_LOAD_IN_PROGRESS (never an empty group, which would send its consumers back to
   * auto.offset.reset), and serves the group and the partition once the volume server is back, with
   * the offsets committed before.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aGroupOnAnUnreachableVolumeServerIsServedOnceItIsBack() throws Exception {
    String topic = "group-volume";
    String group = "held-while-volume-down";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KelpProcess kelp =
        KelpProcess.startOnSeaweedWithSeparateVolumeServer("SeaweedFaultTest-group-volume")) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        // One partition: every partition of the broker is on the volume server that goes down.
        Clients.createTopic(admin, topic, 1);
      }
      for (int i = 0; i < 5; i++) {
        send(kelp, topic, "v" + i);
      }
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Clients.get(
            admin.alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(3))).all());
      }
      // Killed, so that the group's entry still records ids reserved on the volume server.
      kelp.kill();
      WeedProcess weed = kelp.weed();
      weed.killVolume();
      kelp.restart();
      assertEquals(
          COORDINATOR_LOAD_IN_PROGRESS,
          offsetFetchError(kelp, group, tp),
          "OffsetFetch for the group while its volume server is down");
      assertTrue(
          Files.readString(kelp.log()).contains("COORDINATOR_LOAD_IN_PROGRESS"),
          "the log says why the group is not served; log " + kelp.log());
      weed.startVolume();
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Map<TopicPartition, OffsetAndMetadata> offsets =
            Clients.get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        assertEquals(3, offsets.get(tp).offset(), "offset committed before the restart");
      }
      try (KafkaConsumer<String, String> consumer =
          Clients.consumer(kelp.bootstrap(), Map.of(ConsumerConfig.GROUP_ID_CONFIG, group))) {
        consumer.subscribe(List.of(topic));
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (records.size() < 2 && System.nanoTime() < deadline) {
          consumer.poll(Duration.ofMillis(500)).records(tp).forEach(records::add);
        }
        assertEquals(
            List.of("v3", "v4"),
            records.stream().map(ConsumerRecord::value).toList(),
            "the group resumes at its committed offset");
      }
      kelp.stop();
    }
  }

  /**
   * A consumer reads records the broker no longer holds in memory while the volume server that
   * stores them is down: it gets nothing meanwhile (never a gap or an error it stops on), the
   * broker's log says which reads fail and that they are retried, other requests are answered as
   * usual although the broker has a single request thread, and once the volume server is back the
   * consumer gets every record, in order, once.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aConsumerWaitsOutAVolumeServerThatIsDownAndTheLogSaysWhy() throws Exception {
    String topic = "read-volume";
    TopicPartition tp = new TopicPartition(topic, 0);
    int count = 300;
    List<String> sent = new ArrayList<>();
    try (KelpProcess kelp =
        KelpProcess.startOnSeaweedWithSeparateVolumeServer(
            "SeaweedFaultTest-read-volume", "--request-threads", "1")) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Clients.createTopic(admin, topic, 1);
      }
      String padding = "x".repeat(1000);
      try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
        for (int i = 0; i < count; i++) {
          sent.add("r" + i + padding);
          producer.send(new ProducerRecord<>(topic, 0, "k", sent.get(i)));
        }
        producer.flush();
      }
      // A new broker process holds none of the records in memory: reads go to the volume server.
      kelp.restart();
      WeedProcess weed = kelp.weed();
      weed.killVolume();
      List<String> got = new CopyOnWriteArrayList<>();
      AtomicBoolean done = new AtomicBoolean();
      Thread reader =
          new Thread(
              () -> {
                try (KafkaConsumer<String, String> consumer =
                    Clients.consumer(
                        kelp.bootstrap(),
                        Map.of(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "65536"))) {
                  consumer.assign(List.of(tp));
                  consumer.seekToBeginning(List.of(tp));
                  while (!done.get() && got.size() < count) {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> got.add(r.value()));
                  }
                }
              });
      reader.start();
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        long slowestMs = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < until) {
          long start = System.nanoTime();
          Clients.get(admin.listTopics().names());
          slowestMs = Math.max(slowestMs, (System.nanoTime() - start) / 1_000_000);
          Thread.sleep(200);
        }
        assertEquals(List.of(), got, "records while no volume server holds them");
        // The consumer's fetches wait on reads that fail for seconds, on threads of their own.
        assertTrue(slowestMs < 2_000, "slowest Metadata request during the outage: " + slowestMs);
      }
      String log = Files.readString(kelp.log());
      assertTrue(
          log.contains("reading chunk") && log.contains("failed, retrying"),
          "the log says that reads fail and are retried; log " + kelp.log());
      weed.startVolume();
      reader.join(TimeUnit.SECONDS.toMillis(90));
      done.set(true);
      reader.join(TimeUnit.SECONDS.toMillis(30));
      assertEquals(sent, got, "every record once the volume server is back, in order, once");
      List<String> warnings =
          Files.readString(kelp.log()).lines().filter(l -> l.contains(" WARN ")).toList();
      // The consumer's fetches retry at once and every read fails while the volume is away: a
      // few lines say so, not one per fetch.
      assertTrue(warnings.size() <= 6, "warnings during the outage: " + warnings);
      kelp.stop();
    }
  }

  /**
   * The filer is frozen (master and filer in one weed process, SIGSTOP; the volume server keeps
   * serving) while a new group's first write waits on it: another group, whose writes go to the
   * volume server, still rebalances and reads, the broker's log says the filer is slow, and once
   * the filer answers again the new group reads every record too. Two request threads: the new
   * group's SyncGroup holds one, and its member's heartbeats wait behind it without holding the
   * other. A request of the new group itself is answered COORDINATOR_NOT_AVAILABLE (which clients
   * retry) once it has waited offsets.commit.timeout.ms, not when the filer answers.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aGroupWaitingOnAFrozenFilerHoldsUpNoOtherGroup() throws Exception {
    aGroupWaitingOnAFrozenFilerHoldsUpNoOtherGroup("frozen-filer", CLASSIC);
  }

  /** As above, with groups of the KIP-848 consumer protocol. */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aConsumerProtocolGroupWaitingOnAFrozenFilerHoldsUpNoOtherGroup() throws Exception {
    aGroupWaitingOnAFrozenFilerHoldsUpNoOtherGroup(
        "frozen-filer-848", group -> Groups.consumerProtocol(group));
  }

  private void aGroupWaitingOnAFrozenFilerHoldsUpNoOtherGroup(
      String topic, Function<String, Map<String, Object>> groupSettings) throws Exception {
    whileANewGroupWaitsOnAFrozenFiler(
        topic,
        List.of("--request-threads", "2"),
        groupSettings,
        (kelp, sent) -> {
          assertEquals(
              sent.subList(5, 10),
              readInGroup(kelp, groupSettings.apply("steady"), topic, 5, 30),
              "the steady group rebalances and reads while the new group waits on the filer");
          // The new group's own requests wait behind its write, for offsets.commit.timeout.ms
          // (5 s) at most, then get an error that clients retry, as from Kafka: each group API,
          // read back with Kafka's client codec, and an OffsetFetch v1, whose error is per
          // partition.
          StuckGroupRequests.assertAnsweredRetriably(
              "127.0.0.1", kelp.port(), "new-while-frozen", topic);
          long start = System.nanoTime();
          short error = offsetFetchError(kelp, "new-while-frozen", new TopicPartition(topic, 0));
          long ms = (System.nanoTime() - start) / 1_000_000;
          assertEquals(
              COORDINATOR_NOT_AVAILABLE,
              error,
              "an OffsetFetch of the new group while it waits on the filer, after " + ms + " ms");
          assertTrue(ms >= 4_000 && ms < 9_000, "answered after " + ms + " ms");
          assertTrue(
              Files.readString(kelp.log()).contains("answered COORDINATOR_NOT_AVAILABLE"),
              "the log says why; log " + kelp.log());
        });
  }

  /** A classic group's consumer settings: only the group id. */
  private static final Function<String, Map<String, Object>> CLASSIC =
      group -> Map.of(ConsumerConfig.GROUP_ID_CONFIG, group);

  /**
   * As above, with one request thread: the new group's SyncGroup waits on the filer, and so does a
   * CreateTopics, each holding the one thread of its kind, and Metadata is answered meanwhile, as
   * the group APIs and Metadata that creates no topic have threads of their own.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void requestsWaitingOnAFrozenFilerHoldUpNoMetadataRequest() throws Exception {
    whileANewGroupWaitsOnAFrozenFiler(
        "frozen-filer-metadata",
        List.of("--request-threads", "1"),
        CLASSIC,
        (kelp, sent) -> {
          Admin creating = Clients.admin(kelp.bootstrap());
          try (Admin admin = Clients.admin(kelp.bootstrap())) {
            // Answered once the filer is back; it holds the blocking request thread until then.
            creating.createTopics(List.of(new NewTopic("created-while-frozen", 1, (short) 1)));
            Thread.sleep(1_000);
            long start = System.nanoTime();
            Clients.get(admin.listTopics().names());
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(
                ms < 2_000, "Metadata while the new group waits on the filer: " + ms + " ms");
          } finally {
            creating.close(Duration.ZERO);
          }
        });
  }

  /** What a test checks while the filer is frozen and a new group waits on it. */
  private interface WhileFrozen {
    void check(KelpProcess kelp, List<String> sent) throws Exception;
  }

  /**
   * Ten records in partition 0 of {@code topic}; the group "steady" reads and commits the first
   * five before the filer is frozen (so its directory is claimed), then a consumer of a new group
   * subscribes, and {@code whileFrozen} runs once the new group's first write waits on the filer.
   * The filer is continued after at least 12 s (past the 10 s deadline of one filer call); then the
   * new group reads all ten records, and the broker's log says the filer was slow.
   */
  private void whileANewGroupWaitsOnAFrozenFiler(
      String topic,
      List<String> kelpArgs,
      Function<String, Map<String, Object>> groupSettings,
      WhileFrozen whileFrozen)
      throws Exception {
    try (KelpProcess kelp =
        KelpProcess.startOnSeaweedWithSeparateVolumeServer(
            "SeaweedFaultTest-" + topic, kelpArgs.toArray(String[]::new))) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Clients.createTopic(admin, topic, 1);
      }
      List<String> sent = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        sent.add("v" + i);
      }
      for (String value : sent.subList(0, 5)) {
        send(kelp, topic, value);
      }
      assertEquals(
          sent.subList(0, 5), readInGroup(kelp, groupSettings.apply("steady"), topic, 5, 60));
      for (String value : sent.subList(5, 10)) {
        send(kelp, topic, value);
      }
      WeedProcess weed = kelp.weed();
      signal(weed.pid(), "STOP");
      List<String> late = new CopyOnWriteArrayList<>();
      Thread lateReader =
          new Thread(
              () -> {
                try {
                  late.addAll(
                      readInGroup(kelp, groupSettings.apply("new-while-frozen"), topic, 10, 120));
                } catch (RuntimeException e) {
                  late.add(e.toString());
                }
              });
      long frozenAt = System.nanoTime();
      try {
        lateReader.start();
        // The new group's join ends at once; its SyncGroup's write then waits on the filer.
        Thread.sleep(5_000);
        whileFrozen.check(kelp, sent);
        assertEquals(List.of(), late, "the new group while the filer is frozen");
      } finally {
        long frozenMs = (System.nanoTime() - frozenAt) / 1_000_000;
        Thread.sleep(Math.max(0, 12_000 - frozenMs));
        signal(weed.pid(), "CONT");
      }
      lateReader.join(TimeUnit.SECONDS.toMillis(150));
      assertEquals(sent, late, "the new group once the filer answers");
      String log = Files.readString(kelp.log());
      assertTrue(
          log.contains("The filer " + weed.filerAddress() + " answered"),
          "the log says the filer was slow; log " + kelp.log());
      kelp.stop();
    }
  }

  /**
   * Reads {@code count} records of partition 0 in the group {@code settings} name from its
   * committed offset (the earliest for a new group), commits, and closes; gives up after {@code
   * seconds}.
   */
  private static List<String> readInGroup(
      KelpProcess kelp, Map<String, Object> settings, String topic, int count, int seconds) {
    TopicPartition tp = new TopicPartition(topic, 0);
    List<String> got = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap(), settings)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (got.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).records(tp).forEach(r -> got.add(r.value()));
      }
      if (got.size() >= count) {
        consumer.commitSync(Duration.ofSeconds(seconds));
      }
    }
    return got;
  }

  private static final short COORDINATOR_LOAD_IN_PROGRESS = 14;
  private static final short COORDINATOR_NOT_AVAILABLE = 15;

  /** The error of an OffsetFetch v1 for one partition of {@code group}, sent as raw bytes. */
  private static short offsetFetchError(KelpProcess kelp, String group, TopicPartition tp)
      throws IOException {
    byte[] groupId = group.getBytes(StandardCharsets.UTF_8);
    byte[] topic = tp.topic().getBytes(StandardCharsets.UTF_8);
    ByteBuffer request = ByteBuffer.allocate(64 + groupId.length + topic.length);
    int correlationId = 77;
    request.putShort((short) 9).putShort((short) 1).putInt(correlationId).putShort((short) -1);
    request.putShort((short) groupId.length).put(groupId);
    request.putInt(1).putShort((short) topic.length).put(topic);
    request.putInt(1).putInt(tp.partition());
    request.flip();
    try (RawConnection raw = RawConnection.open("127.0.0.1", kelp.port())) {
      raw.writeFrame(request);
      ByteBuffer response =
          raw.awaitFrameOrClose(Duration.ofSeconds(30))
              .orElseThrow(() -> new AssertionError("OffsetFetch closed the connection"));
      assertEquals(correlationId, response.getInt());
      assertEquals(1, response.getInt(), "topics");
      response.position(response.position() + 2 + response.getShort(response.position()));
      assertEquals(1, response.getInt(), "partitions");
      assertEquals(tp.partition(), response.getInt());
      response.getLong(); // committed offset
      short metadataLength = response.getShort();
      response.position(response.position() + Math.max(0, metadataLength));
      return response.getShort();
    }
  }

  private static void send(KelpProcess kelp, String topic, String value) throws Exception {
    try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
      producer.send(new ProducerRecord<>(topic, 0, "k", value)).get(30, TimeUnit.SECONDS);
    }
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> !f.equals(dir)).toList();
    }
  }

  private static void createTopic(KelpProcess kelp, String topic) {
    try (Admin admin = Clients.admin(kelp.bootstrap())) {
      Clients.createTopic(admin, topic, PARTITIONS);
    }
  }
}
