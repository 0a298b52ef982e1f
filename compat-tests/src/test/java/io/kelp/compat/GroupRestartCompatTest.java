package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Committed offsets survive SIGKILL of the broker: a classic group whose commit was acknowledged
 * just before the kill, and a KIP-848 group that committed and left, both resume exactly at their
 * commits after the restart: nothing before them is read again, nothing after them is skipped.
 */
class GroupRestartCompatTest {
  private static final String TOPIC = "restart-groups";
  private static final int PARTITIONS = 3;
  private static final int RECORDS = 100;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void groupsResumeFromTheirCommitsAfterSigkill() throws Exception {
    try (KelpProcess kelp = KelpProcess.start("GroupRestartCompatTest")) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Groups.createTopic(admin, TOPIC, PARTITIONS);
      }
      Groups.produceNumbered(kelp.bootstrap(), TOPIC, PARTITIONS, RECORDS);
      List<TopicPartition> tps = Groups.partitions(TOPIC, PARTITIONS);
      // commits below what the members read, so that resuming from the position a member had
      // (rather than from the commit) would show
      Map<TopicPartition, OffsetAndMetadata> classicCommits =
          Map.of(
              tps.get(0), new OffsetAndMetadata(17, "classic p0"),
              tps.get(1), new OffsetAndMetadata(42, "classic p1"),
              tps.get(2), new OffsetAndMetadata(0, "classic p2"));
      Map<TopicPartition, OffsetAndMetadata> consumerCommits =
          Map.of(
              tps.get(0), new OffsetAndMetadata(60, "848 p0"),
              tps.get(1), new OffsetAndMetadata(5, "848 p1"),
              tps.get(2), new OffsetAndMetadata(99, "848 p2"));

      try (KafkaConsumer<String, String> member =
          Groups.member(kelp.bootstrap(), Groups.consumerProtocol("restart-848"))) {
        readEverything(member);
        member.commitSync(consumerCommits);
      }
      KafkaConsumer<String, String> classic =
          Groups.member(kelp.bootstrap(), Groups.classic("restart-classic"));
      try {
        readEverything(classic);
        classic.commitSync(classicCommits);
        // acknowledged, so it must be durable: no time for a background flush
        kelp.kill();
      } finally {
        // its broker is gone: no LeaveGroup gets through, and the member must not heartbeat
        // into the restarted broker either
        classic.close(Duration.ZERO);
      }
      kelp.restart();

      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        assertEquals(classicCommits, withoutEpochs(offsets(admin, "restart-classic")));
        assertEquals(consumerCommits, withoutEpochs(offsets(admin, "restart-848")));
      }
      try (KafkaConsumer<String, String> member =
          Groups.member(kelp.bootstrap(), Groups.classic("restart-classic"))) {
        assertResumes(member, classicCommits);
      }
      try (KafkaConsumer<String, String> member =
          Groups.member(kelp.bootstrap(), Groups.consumerProtocol("restart-848"))) {
        assertResumes(member, consumerCommits);
      }
      kelp.stop();
    }
  }

  /** Joins the group and reads every partition to its end. */
  private static void readEverything(KafkaConsumer<String, String> member) {
    member.subscribe(List.of(TOPIC));
    int[] read = {0};
    Groups.pollUntil(
        member,
        WAIT,
        "every record read",
        () -> read[0] == PARTITIONS * RECORDS,
        records -> read[0] += records.count());
  }

  /** Joins the group and checks that each partition is read from its commit to its end, once. */
  private static void assertResumes(
      KafkaConsumer<String, String> member, Map<TopicPartition, OffsetAndMetadata> commits) {
    member.subscribe(List.of(TOPIC));
    Map<TopicPartition, Long> next = new HashMap<>();
    commits.forEach((tp, om) -> next.put(tp, om.offset()));
    Groups.pollUntil(
        member,
        WAIT,
        "every partition read from its commit to its end",
        () -> next.values().stream().allMatch(o -> o == RECORDS),
        records -> {
          for (ConsumerRecord<String, String> r : records) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            assertEquals(
                next.get(tp).longValue(), r.offset(), "next offset read from " + tp + " " + next);
            assertEquals(r.partition() + ":" + r.offset(), r.value());
            next.put(tp, r.offset() + 1);
          }
        });
  }

  private static Map<TopicPartition, OffsetAndMetadata> offsets(Admin admin, String group) {
    return Clients.get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
  }

  private static Map<TopicPartition, OffsetAndMetadata> withoutEpochs(
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    offsets.forEach((tp, om) -> out.put(tp, new OffsetAndMetadata(om.offset(), om.metadata())));
    return out;
  }
}
