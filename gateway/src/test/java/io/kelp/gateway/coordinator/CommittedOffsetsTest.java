package io.kelp.gateway.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.CommittedOffsets.Commit;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import io.kelp.gateway.coordinator.classic.ClassicMember;
import io.kelp.gateway.coordinator.store.ObjectStoreGroupStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Committed offsets: commit, fetch, delete and expiry, kept in the real group store. */
class CommittedOffsetsTest {
  private static final long RETENTION = 60_000;

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private TestTopics topics;
  private GroupCoordinator coordinator;
  private CommittedOffsets offsets;
  private final TopicPartition t0 = new TopicPartition("t", 0);
  private final TopicPartition t1 = new TopicPartition("t", 1);

  @BeforeEach
  void setUp() throws Exception {
    topics = new TestTopics(dir);
    topics.registry.create("t", 2, Map.of());
    coordinator = open();
  }

  private GroupCoordinator open() throws Exception {
    GroupConfig d = GroupConfig.defaults();
    GroupCoordinator c =
        new GroupCoordinator(
            new ObjectStoreGroupStore(topics.store),
            topics.registry,
            new GroupConfig(
                0,
                d.minSessionTimeoutMs(),
                d.maxSessionTimeoutMs(),
                d.maxGroupSize(),
                RETENTION,
                d.offsetsRetentionCheckIntervalMs(),
                d.consumerSessionTimeoutMs(),
                d.consumerHeartbeatIntervalMs(),
                d.consumerAssignors(),
                d.commitTimeoutMs()),
            clock::get);
    ClassicGroups.register(c);
    c.load();
    offsets = new CommittedOffsets(c);
    return c;
  }

  @AfterEach
  void tearDown() throws Exception {
    coordinator.close();
    topics.close();
  }

  private Map<TopicPartition, Short> commitFromOutside(String group, long offset) {
    return offsets.commit(
        group,
        "",
        null,
        -1,
        (short) 8,
        -1,
        List.of(new Commit(t0, offset, 3, "meta"), new Commit(t1, offset + 1, -1, null)));
  }

  @Test
  void commitsFromOutsideTheGroupAreStoredAndSurviveARestart() throws Exception {
    assertEquals(Map.of(t0, Errors.NONE, t1, Errors.NONE), commitFromOutside("g", 10));
    coordinator.close();
    coordinator = open();
    CommittedOffsets.Fetched f =
        offsets.fetch("g", null, -1, List.of(t0, t1, new TopicPartition("t", 5)));
    assertEquals(Errors.NONE, f.error());
    assertEquals(10, f.offsets().get(t0).offset());
    assertEquals(3, f.offsets().get(t0).leaderEpoch());
    assertEquals("meta", f.offsets().get(t0).metadata());
    assertEquals(11, f.offsets().get(t1).offset());
    assertEquals("", f.offsets().get(t1).metadata());
    assertNull(f.offsets().get(new TopicPartition("t", 5)));
  }

  @Test
  void unknownPartitionsLongMetadataAndUnknownGroupsAreRefused() {
    Map<TopicPartition, Short> r =
        offsets.commit(
            "g",
            "",
            null,
            -1,
            (short) 8,
            -1,
            List.of(
                new Commit(new TopicPartition("nope", 0), 1, -1, null),
                new Commit(new TopicPartition("t", 9), 1, -1, null),
                new Commit(t0, 1, -1, "x".repeat(5000))));
    assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, r.get(new TopicPartition("nope", 0)));
    assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, r.get(new TopicPartition("t", 9)));
    assertEquals(Errors.OFFSET_METADATA_TOO_LARGE, r.get(t0));
    Map<TopicPartition, Short> member =
        offsets.commit("h", "m-1", null, 3, (short) 8, -1, List.of(new Commit(t0, 1, -1, null)));
    assertEquals(Errors.ILLEGAL_GENERATION, member.get(t0));
    member =
        offsets.commit("h", "m-1", null, 3, (short) 9, -1, List.of(new Commit(t0, 1, -1, null)));
    assertEquals(Errors.GROUP_ID_NOT_FOUND, member.get(t0));
    assertTrue(offsets.fetch("nobody", null, -1, null).offsets().isEmpty());
  }

  @Test
  void offsetsOfAnEmptyGroupExpireAfterTheRetentionAndTheGroupGoes() {
    commitFromOutside("g", 10);
    clock.addAndGet(RETENTION - 1);
    offsets.expire();
    assertEquals(2, offsets.fetch("g", null, -1, null).offsets().size());
    clock.addAndGet(2);
    offsets.expire();
    assertNull(coordinator.group("g"), "an empty group without offsets is removed");
    assertTrue(offsets.fetch("g", null, -1, null).offsets().isEmpty());
  }

  @Test
  void offsetsOfDeletedTopicsAreRemoved() throws Exception {
    commitFromOutside("g", 10);
    topics.registry.delete("t");
    offsets.expire();
    assertTrue(offsets.fetch("g", null, -1, null).offsets().isEmpty());
  }

  @Test
  void deletingOffsetsAndGroups() {
    commitFromOutside("g", 10);
    CommittedOffsets.Deleted d = offsets.delete("g", List.of(t0));
    assertEquals(Errors.NONE, d.error());
    assertEquals(java.util.Set.of(t1), offsets.fetch("g", null, -1, null).offsets().keySet());
    assertEquals(Errors.GROUP_ID_NOT_FOUND, offsets.delete("nobody", List.of(t0)).error());
    assertEquals(
        Map.of("g", Errors.NONE, "nobody", Errors.GROUP_ID_NOT_FOUND),
        offsets.deleteGroups(List.of("g", "nobody")));
    assertNull(coordinator.group("g"));
  }

  @Test
  void aGroupWithMembersCannotBeDeletedNorLoseOffsetsOfItsTopics() {
    commitFromOutside("g", 10);
    ClassicGroup g = ClassicGroups.getOrCreate(coordinator, "g", false);
    byte[] subscription = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 0};
    g.join(
        new ClassicGroup.JoinRequest(
            "",
            null,
            "consumer",
            List.of(new ClassicMember.Protocol("range", subscription)),
            10_000,
            10_000,
            null,
            "c",
            "/127.0.0.1",
            false,
            false));
    g.tick(clock.get());
    assertEquals("CompletingRebalance", g.state());
    assertEquals(Map.of("g", Errors.NON_EMPTY_GROUP), offsets.deleteGroups(List.of("g")));
    CommittedOffsets.Deleted d = offsets.delete("g", List.of(t0));
    assertEquals(Errors.GROUP_SUBSCRIBED_TO_TOPIC, d.partitions().get(t0));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, commitFromOutside("g", 20).get(t0));
  }
}
