package io.kelp.gateway.coordinator.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.MemoryGroupStore;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.TestTopics;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicMember;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The consumer group protocol's state machine, on a clock the test moves. */
class ConsumerGroupTest {
  @TempDir Path dir;
  TestTopics topics;
  final MemoryGroupStore store = new MemoryGroupStore();
  final AtomicLong clock = new AtomicLong(1_000_000);
  GroupCoordinator coordinator;
  UUID t;

  @BeforeEach
  void setUp() throws Exception {
    topics = new TestTopics(dir);
    t = topics.registry.create("t", 6, Map.of()).topicId();
    coordinator = coordinator(GroupConfig.defaults());
  }

  GroupCoordinator coordinator(GroupConfig config) {
    GroupCoordinator c = new GroupCoordinator(store, topics.registry, config, clock::get);
    ConsumerGroups.register(c);
    return c;
  }

  @AfterEach
  void tearDown() throws Exception {
    coordinator.close();
    topics.close();
  }

  static Heartbeat join(String member, List<String> subscription) {
    return new Heartbeat(
        "g", member, 0, null, null, 30_000, subscription, null, null, Map.of(), "c", "/h");
  }

  Heartbeat beat(String member, int epoch, Set<Integer> owned) {
    return new Heartbeat(
        "g",
        member,
        epoch,
        null,
        null,
        -1,
        null,
        null,
        null,
        owned == null ? null : Map.of(t, owned),
        "c",
        "/h");
  }

  HeartbeatResult send(Heartbeat hb) throws Exception {
    return ConsumerGroups.heartbeat(coordinator, hb, (short) 1);
  }

  short error(Heartbeat hb) {
    return assertThrows(GroupError.class, () -> send(hb)).code();
  }

  ConsumerGroup group() {
    return (ConsumerGroup) coordinator.group("g");
  }

  Set<Integer> partitions(HeartbeatResult r) {
    assertNotNull(r.assignment(), "the response carries an assignment");
    return r.assignment().getOrDefault(t, Set.of());
  }

  @Test
  void firstMemberGetsEverythingThenASecondOneGetsHalfAfterRevocation() throws Exception {
    HeartbeatResult a = send(join("a", List.of("t")));
    assertEquals(1, a.memberEpoch());
    assertEquals(5_000, a.heartbeatIntervalMs());
    assertEquals(Set.of(0, 1, 2, 3, 4, 5), partitions(a));
    assertEquals("Stable", group().state());

    HeartbeatResult b = send(join("b", List.of("t")));
    assertEquals(2, b.memberEpoch());
    assertEquals(Set.of(), partitions(b), "b waits for partitions a still owns");
    assertEquals("Reconciling", group().state());

    HeartbeatResult a2 = send(beat("a", 1, Set.of(0, 1, 2, 3, 4, 5)));
    assertEquals(1, a2.memberEpoch(), "a keeps its epoch until it revokes");
    Set<Integer> kept = partitions(a2);
    assertEquals(3, kept.size());

    HeartbeatResult b2 = send(beat("b", 2, Set.of()));
    assertNull(b2.assignment(), "still nothing for b: a has not revoked yet");

    HeartbeatResult a3 = send(beat("a", 1, kept));
    assertEquals(2, a3.memberEpoch());
    assertNull(a3.assignment(), "a's partitions did not change");

    HeartbeatResult b3 = send(beat("b", 2, Set.of()));
    Set<Integer> bs = partitions(b3);
    assertEquals(3, bs.size());
    assertTrue(bs.stream().noneMatch(kept::contains));
    send(beat("b", 2, bs));
    assertEquals("Stable", group().state());
  }

  @Test
  void leavingGivesThePartitionsToTheOthers() throws Exception {
    twoStableMembers();
    HeartbeatResult left = send(beat("b", -1, null));
    assertEquals(-1, left.memberEpoch());
    assertEquals(3, group().groupEpoch());
    HeartbeatResult a = send(beat("a", 2, Set.of(0, 1, 2)));
    assertEquals(3, a.memberEpoch());
    assertEquals(Set.of(0, 1, 2, 3, 4, 5), partitions(a));
  }

  /** a and b at epoch 2, owning 0-2 and 3-5. */
  void twoStableMembers() throws Exception {
    send(join("a", List.of("t")));
    send(join("b", List.of("t")));
    Set<Integer> kept = partitions(send(beat("a", 1, Set.of(0, 1, 2, 3, 4, 5))));
    assertEquals(Set.of(0, 1, 2), kept);
    send(beat("a", 1, kept));
    Set<Integer> bs = partitions(send(beat("b", 2, Set.of())));
    send(beat("b", 2, bs));
    assertEquals("Stable", group().state());
  }

  @Test
  void silentMemberIsFencedAfterTheSessionTimeout() throws Exception {
    twoStableMembers();
    clock.addAndGet(30_000);
    send(beat("a", 2, Set.of(0, 1, 2)));
    clock.addAndGet(20_000);
    synchronized (group()) {
      assertTrue(group().expireMembers());
      assertEquals(Set.of("a"), group().members().keySet());
    }
    assertEquals(Set.of(0, 1, 2, 3, 4, 5), partitions(send(beat("a", 2, Set.of(0, 1, 2)))));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, error(beat("b", 2, Set.of(3, 4, 5))));
  }

  @Test
  void memberThatDoesNotRevokeInTimeIsFenced() throws Exception {
    send(join("a", List.of("t")));
    send(join("b", List.of("t")));
    send(beat("a", 1, Set.of(0, 1, 2, 3, 4, 5)));
    clock.addAndGet(30_001);
    send(beat("b", 2, Set.of()));
    synchronized (group()) {
      assertTrue(group().expireMembers());
      assertEquals(Set.of("b"), group().members().keySet());
    }
    assertEquals(Set.of(0, 1, 2, 3, 4, 5), partitions(send(beat("b", 2, Set.of()))));
  }

  @Test
  void staticMemberLeavesAndComesBackWithItsPartitions() throws Exception {
    Heartbeat s1 =
        new Heartbeat(
            "g", "s1", 0, "i1", null, 30_000, List.of("t"), null, null, Map.of(), "c", "/h");
    HeartbeatResult r = send(s1);
    assertEquals(Set.of(0, 1, 2, 3, 4, 5), partitions(r));
    Heartbeat other =
        new Heartbeat(
            "g", "s2", 0, "i1", null, 30_000, List.of("t"), null, null, Map.of(), "c", "/h");
    assertEquals(Errors.UNRELEASED_INSTANCE_ID, error(other));

    Heartbeat leave =
        new Heartbeat("g", "s1", -2, "i1", null, -1, null, null, null, null, "c", "/h");
    assertEquals(-2, send(leave).memberEpoch());
    assertEquals(1, group().groupEpoch(), "a static leave does not rebalance");

    HeartbeatResult back = send(other);
    assertEquals("s2", back.memberId());
    assertEquals(1, back.memberEpoch());
    assertEquals(Set.of(0, 1, 2, 3, 4, 5), partitions(back));
    assertEquals(1, group().groupEpoch());

    Heartbeat stale =
        new Heartbeat("g", "s1", 1, "i1", null, -1, null, null, null, null, "c", "/h");
    assertEquals(Errors.FENCED_INSTANCE_ID, error(stale));
    Heartbeat unknown =
        new Heartbeat("g", "s9", 1, "i9", null, -1, null, null, null, null, "c", "/h");
    assertEquals(Errors.UNKNOWN_MEMBER_ID, error(unknown));
  }

  @Test
  void restartKeepsMembersTheirIdsEpochsAndPartitions() throws Exception {
    twoStableMembers();
    coordinator.close();
    clock.addAndGet(600_000);
    coordinator = coordinator(GroupConfig.defaults());
    coordinator.load();
    ConsumerGroup g = group();
    synchronized (g) {
      assertEquals(2, g.groupEpoch());
      assertEquals(Set.of("a", "b"), g.members().keySet());
      assertEquals(2, g.members().get("b").memberEpoch());
      assertEquals("Stable", g.state());
      assertTrue(!g.expireMembers(), "sessions start afresh after a restart");
    }
    HeartbeatResult a = send(beat("a", 2, Set.of(0, 1, 2)));
    assertEquals(2, a.memberEpoch());
    assertNull(a.assignment());
    int writes = store.metadataWrites();
    send(beat("a", 2, Set.of(0, 1, 2)));
    assertEquals(writes, store.metadataWrites(), "an unchanged group is not written again");
  }

  @Test
  void addedPartitionsAreAssigned() throws Exception {
    send(join("a", List.of("t")));
    topics.registry.addPartitions("t", 8);
    HeartbeatResult a = send(beat("a", 1, Set.of(0, 1, 2, 3, 4, 5)));
    assertEquals(2, a.memberEpoch());
    assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7), partitions(a));
  }

  @Test
  void topicsCreatedLaterAndRegexSubscriptionsAreAssigned() throws Exception {
    HeartbeatResult r =
        send(
            new Heartbeat(
                "g", "a", 0, null, null, 30_000, null, "x\\..*", null, Map.of(), "c", "/h"));
    assertEquals(Map.of(), r.assignment());
    UUID x = topics.registry.create("x.one", 2, Map.of()).topicId();
    HeartbeatResult r2 = send(beat("a", 1, Set.of()));
    assertEquals(2, r2.memberEpoch());
    assertEquals(Map.of(x, Set.of(0, 1)), r2.assignment());
  }

  @Test
  void errorCodesAsKafkaAnswers() throws Exception {
    assertEquals(Errors.GROUP_ID_NOT_FOUND, error(beat("a", 3, Set.of())));
    send(join("a", List.of("t")));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, error(beat("zz", 1, Set.of())));
    assertEquals(Errors.FENCED_MEMBER_EPOCH, error(beat("a", 7, Set.of())));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, error(beat("zz", -1, null)));
    GroupError e =
        assertThrows(
            GroupError.class,
            () ->
                send(
                    new Heartbeat(
                        "g", "b", 0, null, null, -1, List.of("t"), null, null, Map.of(), "c", "")));
    assertEquals(Errors.INVALID_REQUEST, e.code());
    assertEquals("RebalanceTimeoutMs must be provided in first request.", e.getMessage());
    e =
        assertThrows(
            GroupError.class,
            () -> ConsumerGroups.heartbeat(coordinator, join("", List.of("t")), (short) 1));
    assertEquals("MemberId can't be empty.", e.getMessage());
    HeartbeatResult v0 = ConsumerGroups.heartbeat(coordinator, join("", List.of("t")), (short) 0);
    assertEquals(22, v0.memberId().length(), "v0 members get an id from the broker");
    Heartbeat badAssignor =
        new Heartbeat("g", "c", 0, null, null, 1, List.of("t"), null, "fancy", Map.of(), "c", "");
    e = assertThrows(GroupError.class, () -> send(badAssignor));
    assertEquals(Errors.UNSUPPORTED_ASSIGNOR, e.code());
    assertEquals(
        "ServerAssignor fancy is not supported. Supported assignors: uniform, range.",
        e.getMessage());
    Heartbeat badRegex =
        new Heartbeat("g", "c", 0, null, null, 1, null, "(", null, Map.of(), "c", "");
    assertEquals(Errors.INVALID_REGULAR_EXPRESSION, error(badRegex));
  }

  @Test
  void groupMaxSize() throws Exception {
    coordinator.close();
    GroupConfig d = GroupConfig.defaults();
    coordinator =
        coordinator(
            new GroupConfig(
                d.initialRebalanceDelayMs(),
                d.minSessionTimeoutMs(),
                d.maxSessionTimeoutMs(),
                1,
                d.offsetsRetentionMs(),
                d.offsetsRetentionCheckIntervalMs(),
                d.consumerSessionTimeoutMs(),
                d.consumerHeartbeatIntervalMs(),
                d.consumerAssignors(),
                d.commitTimeoutMs()));
    send(join("a", List.of("t")));
    assertEquals(Errors.GROUP_MAX_SIZE_REACHED, error(join("b", List.of("t"))));
  }

  @Test
  void offsetCommitAndFetchChecksMemberEpochs() throws Exception {
    ConsumerGroup empty = new ConsumerGroup("e", coordinator);
    synchronized (empty) {
      assertEquals(Errors.NONE, empty.validateOffsetCommit("", null, -1, (short) 9));
      assertEquals(Errors.NONE, empty.validateOffsetFetch(null, -1));
    }
    send(join("a", List.of("t")));
    ConsumerGroup g = group();
    synchronized (g) {
      assertEquals(Errors.NONE, g.validateOffsetCommit("a", null, 1, (short) 9));
      assertEquals(Errors.STALE_MEMBER_EPOCH, g.validateOffsetCommit("a", null, 0, (short) 9));
      assertEquals(Errors.UNKNOWN_MEMBER_ID, g.validateOffsetCommit("", null, -1, (short) 9));
      assertEquals(Errors.UNKNOWN_MEMBER_ID, g.validateOffsetCommit("x", null, 1, (short) 9));
      assertEquals(Errors.UNSUPPORTED_VERSION, g.validateOffsetCommit("a", null, 1, (short) 8));
      assertEquals(Errors.NONE, g.validateOffsetFetch("a", 1));
      assertEquals(Errors.NONE, g.validateOffsetFetch(null, -1));
      assertEquals(Errors.STALE_MEMBER_EPOCH, g.validateOffsetFetch("a", 2));
      assertEquals(Errors.UNKNOWN_MEMBER_ID, g.validateOffsetFetch("x", 1));
    }
  }

  @Test
  void classicGroupsAreReplacedOnlyWhenEmpty() throws Exception {
    ClassicGroup busy = new ClassicGroup("g", coordinator);
    busy.join(
        new ClassicGroup.JoinRequest(
            "",
            null,
            "consumer",
            List.of(new ClassicMember.Protocol("range", new byte[0])),
            10_000,
            10_000,
            null,
            "client",
            "/127.0.0.1",
            false,
            false));
    coordinator.putIfAbsent(busy);
    GroupError e = assertThrows(GroupError.class, () -> send(join("a", List.of("t"))));
    assertEquals(Errors.GROUP_ID_NOT_FOUND, e.code());
    assertEquals("Group g is not a consumer group.", e.getMessage());
    coordinator.remove(busy);

    ClassicGroup idle = new ClassicGroup("g", coordinator);
    TopicPartition tp = new TopicPartition("t", 0);
    idle.offsets().put(tp, new OffsetAndMetadata(42, -1, "", 1, -1));
    coordinator.putIfAbsent(idle);
    send(join("a", List.of("t")));
    synchronized (group()) {
      assertEquals(42, group().offsets().get(tp).offset());
    }
  }
}
