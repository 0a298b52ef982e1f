package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetMetadataTooLarge;
import org.junit.jupiter.api.Test;

/**
 * Commits from a consumer that uses assign() and no group membership (empty member id, generation
 * -1), the way Spark, Flink and many hand-written consumers store their positions.
 */
class GroupOffsetsCompatTest {
  private static final String TOPIC = "assigned-commits";

  @Test
  void assignedConsumerCommitsAndReadsBack() throws Exception {
    try (KelpProcess kelp = KelpProcess.start("GroupOffsetsCompatTest")) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Groups.createTopic(admin, TOPIC, 3);
      }
      Groups.produceNumbered(kelp.bootstrap(), TOPIC, 3, 10);
      List<TopicPartition> tps = Groups.partitions(TOPIC, 3);
      TopicPartition p0 = tps.get(0);
      TopicPartition p1 = tps.get(1);
      TopicPartition p2 = tps.get(2);
      String group = "assign-only";
      Map<String, Object> settings = Map.of(ConsumerConfig.GROUP_ID_CONFIG, group);

      try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap(), settings)) {
        consumer.assign(tps);
        assertEquals(nulls(tps), consumer.committed(Set.copyOf(tps)), "nothing committed at first");
        consumer.commitSync(
            Map.of(
                p0, new OffsetAndMetadata(3, "first"),
                p1, new OffsetAndMetadata(7, Optional.of(0), "second"),
                p2, new OffsetAndMetadata(0)));
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(tps));
        assertEquals(3, committed.get(p0).offset());
        assertEquals("first", committed.get(p0).metadata());
        assertEquals(7, committed.get(p1).offset());
        assertEquals("second", committed.get(p1).metadata());
        assertEquals(Optional.of(0), committed.get(p1).leaderEpoch(), "leader epoch kept");
        assertEquals(0, committed.get(p2).offset());
        assertEquals("", committed.get(p2).metadata(), "no metadata reads back as empty");

        // a later commit replaces the earlier one, partition by partition
        consumer.commitSync(Map.of(p0, new OffsetAndMetadata(5, "again")));
        committed = consumer.committed(Set.copyOf(tps));
        assertEquals(5, committed.get(p0).offset());
        assertEquals("again", committed.get(p0).metadata());
        assertEquals(7, committed.get(p1).offset());

        // Kafka's offset.metadata.max.bytes is 4096
        assertThrows(
            OffsetMetadataTooLarge.class,
            () -> consumer.commitSync(Map.of(p2, new OffsetAndMetadata(1, "x".repeat(5000)))));
        assertEquals(0, consumer.committed(Set.of(p2)).get(p2).offset(), "rejected commit left");
      }

      // a new consumer of the group starts where the commits say
      try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap(), settings)) {
        consumer.assign(tps);
        Map<TopicPartition, Long> first = new HashMap<>();
        Groups.pollUntil(
            consumer,
            Duration.ofSeconds(30),
            "records from every partition",
            () -> first.size() == 3,
            records -> {
              for (ConsumerRecord<String, String> r : records) {
                first.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
              }
            });
        assertEquals(Map.of(p0, 5L, p1, 7L, p2, 0L), first);
      }

      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Map<TopicPartition, OffsetAndMetadata> listed =
            Clients.get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        assertEquals(5, listed.get(p0).offset());
        assertEquals("again", listed.get(p0).metadata());
        assertEquals(3, listed.size());

        // a group that only stores offsets is listed and described as an empty simple group
        ConsumerGroupListing listing =
            Clients.get(admin.listConsumerGroups().all()).stream()
                .filter(g -> g.groupId().equals(group))
                .findFirst()
                .orElseThrow(() -> new AssertionError(group + " not listed"));
        assertTrue(listing.isSimpleConsumerGroup(), "no protocol type: " + listing);
        assertEquals(Optional.of(GroupState.EMPTY), listing.groupState());
        ConsumerGroupDescription description =
            Clients.get(admin.describeConsumerGroups(List.of(group)).all()).get(group);
        assertEquals(GroupState.EMPTY, description.groupState());
        assertTrue(description.members().isEmpty());
        assertTrue(description.isSimpleConsumerGroup(), description.toString());

        // OffsetFetch of a group nobody used: nothing, and no error
        assertTrue(
            Clients.get(
                    admin.listConsumerGroupOffsets("never-used").partitionsToOffsetAndMetadata())
                .isEmpty());
      }
      try (KafkaConsumer<String, String> consumer =
          Clients.consumer(
              kelp.bootstrap(), Map.of(ConsumerConfig.GROUP_ID_CONFIG, "never-used"))) {
        assertEquals(nulls(tps), consumer.committed(Set.copyOf(tps)));
      }
      kelp.stop();
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> nulls(List<TopicPartition> tps) {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    tps.forEach(tp -> out.put(tp, null));
    return out;
  }
}
