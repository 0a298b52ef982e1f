package io.kelp.gateway.coordinator.classic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.message.JoinGroupResponse;
import io.kelp.codec.message.SyncGroupResponse;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.MemoryGroupStore;
import io.kelp.gateway.coordinator.classic.ClassicGroup.JoinRequest;
import io.kelp.gateway.coordinator.classic.ClassicGroup.Leaving;
import io.kelp.gateway.coordinator.classic.ClassicMember.Protocol;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class ClassicGroupTest {
  private static final int SESSION = 10_000;
  private static final int REBALANCE = 30_000;

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final MemoryGroupStore store = new MemoryGroupStore();
  private GroupCoordinator coordinator = newCoordinator(0);
  private ClassicGroup group = ClassicGroups.getOrCreate(coordinator, "g", true);

  private GroupCoordinator newCoordinator(long initialDelay) {
    GroupCoordinator c =
        new GroupCoordinator(
            store,
            null,
            GroupConfig.defaults().withInitialRebalanceDelayMs(initialDelay),
            clock::get);
    ClassicGroups.register(c);
    return c;
  }

  @AfterEach
  void close() {
    coordinator.close();
  }

  private static List<Protocol> protocols(String... namesAndTopics) {
    java.util.ArrayList<Protocol> list = new java.util.ArrayList<>();
    for (String n : namesAndTopics) {
      list.add(new Protocol(n, n.getBytes(StandardCharsets.UTF_8)));
    }
    return list;
  }

  private JoinRequest join(String memberId, String instanceId, List<Protocol> protocols) {
    return new JoinRequest(
        memberId,
        instanceId,
        "consumer",
        protocols,
        SESSION,
        REBALANCE,
        null,
        "client",
        "/127.0.0.1",
        true,
        true);
  }

  /** The v4+ flow: MEMBER_ID_REQUIRED first, then the join with the given id. */
  private CompletableFuture<JoinGroupResponse> joinDynamic(String... protocolNames) {
    JoinGroupResponse first = group.join(join("", null, protocols(protocolNames))).join();
    assertEquals(Errors.MEMBER_ID_REQUIRED, first.errorCode());
    assertTrue(first.memberId().startsWith("client-"));
    return group.join(join(first.memberId(), null, protocols(protocolNames)));
  }

  private void tick() {
    group.tick(clock.get());
  }

  private SyncGroupResponse sync(String memberId, int generation, Map<String, byte[]> assignments) {
    return group.sync(memberId, null, generation, "consumer", null, assignments).join();
  }

  /** Two members form generation 1, the leader assigns, both get their share. */
  private String[] stableGroupOfTwo() {
    CompletableFuture<JoinGroupResponse> a = joinDynamic("range");
    CompletableFuture<JoinGroupResponse> b = joinDynamic("range");
    assertFalse(a.isDone(), "the initial rebalance waits for the delay");
    tick();
    JoinGroupResponse ja = a.join();
    JoinGroupResponse jb = b.join();
    assertEquals(1, ja.generationId());
    assertEquals(1, jb.generationId());
    assertEquals("range", ja.protocolName());
    assertEquals(ja.leader(), jb.leader());
    JoinGroupResponse leader = ja.memberId().equals(ja.leader()) ? ja : jb;
    JoinGroupResponse follower = leader == ja ? jb : ja;
    assertEquals(2, leader.members().size());
    assertEquals(0, follower.members().size());
    CompletableFuture<SyncGroupResponse> fs =
        group.sync(follower.memberId(), null, 1, "consumer", "range", Map.of());
    assertFalse(fs.isDone(), "followers wait for the leader's assignment");
    SyncGroupResponse ls =
        sync(
            leader.memberId(),
            1,
            Map.of(leader.memberId(), new byte[] {1}, follower.memberId(), new byte[] {2}));
    assertArrayEquals(new byte[] {1}, ls.assignment());
    assertArrayEquals(new byte[] {2}, fs.join().assignment());
    assertEquals("Stable", group.state());
    return new String[] {leader.memberId(), follower.memberId()};
  }

  @Test
  void membersJoinSyncAndTheAssignmentIsStored() {
    String[] ids = stableGroupOfTwo();
    assertNotNull(store.metadata("g"), "the assignment is in the store before it is handed out");
    assertEquals(Errors.NONE, group.heartbeat(ids[0], null, 1));
    assertEquals(Errors.ILLEGAL_GENERATION, group.heartbeat(ids[0], null, 0));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.heartbeat("nobody", null, 1));
  }

  @Test
  void aSilentMemberIsRemovedAfterItsSessionAndTheOthersRebalance() {
    String[] ids = stableGroupOfTwo();
    clock.addAndGet(SESSION / 2);
    assertEquals(Errors.NONE, group.heartbeat(ids[0], null, 1));
    clock.addAndGet(SESSION / 2 + 1);
    tick();
    assertEquals("PreparingRebalance", group.state());
    assertEquals(Errors.REBALANCE_IN_PROGRESS, group.heartbeat(ids[0], null, 1));
    JoinGroupResponse rejoin = group.join(join(ids[0], null, protocols("range"))).join();
    assertEquals(2, rejoin.generationId());
    assertEquals(ids[0], rejoin.leader());
    assertEquals(1, rejoin.members().size());
  }

  @Test
  void leavingMembersRebalanceTheGroupAndTheLastOneEmptiesIt() {
    String[] ids = stableGroupOfTwo();
    assertEquals(List.of(Errors.NONE), group.leave(List.of(new Leaving(ids[1], null, "done"))));
    assertEquals("PreparingRebalance", group.state());
    JoinGroupResponse rejoin = group.join(join(ids[0], null, protocols("range"))).join();
    assertEquals(2, rejoin.generationId());
    assertEquals(
        List.of(Errors.UNKNOWN_MEMBER_ID), group.leave(List.of(new Leaving(ids[1], null, null))));
    sync(ids[0], 2, Map.of(ids[0], new byte[] {9}));
    assertTrue(group.hasTimeouts(), "members' sessions run out");
    group.leave(List.of(new Leaving(ids[0], null, null)));
    tick();
    assertEquals("Empty", group.state());
    assertTrue(group.isEmpty());
    assertFalse(group.hasTimeouts(), "the sweep leaves an empty group alone");
  }

  @Test
  void theMostSupportedProtocolIsChosen() {
    CompletableFuture<JoinGroupResponse> a = joinDynamic("range", "roundrobin");
    CompletableFuture<JoinGroupResponse> b = joinDynamic("roundrobin");
    tick();
    assertEquals("roundrobin", a.join().protocolName());
    assertEquals("roundrobin", b.join().protocolName());
    JoinGroupResponse c = group.join(join("", null, protocols("range"))).join();
    assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL, c.errorCode());
  }

  @Test
  void aStaticMemberRejoiningWithANewIdKeepsItsAssignmentWithoutARebalance() {
    CompletableFuture<JoinGroupResponse> a = group.join(join("", "instance-a", protocols("range")));
    tick();
    JoinGroupResponse ja = a.join();
    assertTrue(ja.memberId().startsWith("instance-a-"));
    sync(ja.memberId(), 1, Map.of(ja.memberId(), new byte[] {7}));
    JoinGroupResponse again = group.join(join("", "instance-a", protocols("range"))).join();
    assertEquals(Errors.NONE, again.errorCode());
    assertEquals(1, again.generationId(), "no new generation");
    assertTrue(again.skipAssignment(), "the static leader is told not to assign again");
    assertEquals("Stable", group.state());
    assertEquals(Errors.FENCED_INSTANCE_ID, group.heartbeat(ja.memberId(), "instance-a", 1));
    SyncGroupResponse s =
        group.sync(again.memberId(), "instance-a", 1, null, null, Map.of()).join();
    assertArrayEquals(new byte[] {7}, s.assignment());
  }

  @Test
  void offsetCommitsAreCheckedAgainstTheGeneration() {
    assertEquals(Errors.NONE, group.validateOffsetCommit("", null, -1, (short) 8));
    String[] ids = stableGroupOfTwo();
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.validateOffsetCommit("", null, -1, (short) 8));
    assertEquals(Errors.ILLEGAL_GENERATION, group.validateOffsetCommit(ids[0], null, 7, (short) 8));
    assertEquals(Errors.NONE, group.validateOffsetCommit(ids[0], null, 1, (short) 8));
  }

  @Test
  void aRestartedCoordinatorResumesTheGenerationAndItsMembers() throws Exception {
    String[] ids = stableGroupOfTwo();
    coordinator.close();
    coordinator = newCoordinator(0);
    coordinator.load();
    group = (ClassicGroup) coordinator.group("g");
    assertEquals("Stable", group.state());
    assertEquals(Errors.NONE, group.heartbeat(ids[1], null, 1));
    SyncGroupResponse s = sync(ids[1], 1, Map.of());
    assertArrayEquals(new byte[] {2}, s.assignment());
  }

  @Test
  void anAssignmentThatCannotBeStoredIsNotHandedOut() {
    CompletableFuture<JoinGroupResponse> a = joinDynamic("range");
    tick();
    JoinGroupResponse ja = a.join();
    store.failWrites(true);
    SyncGroupResponse s = sync(ja.memberId(), 1, Map.of(ja.memberId(), new byte[] {1}));
    assertEquals(Errors.NOT_COORDINATOR, s.errorCode());
    assertEquals("PreparingRebalance", group.state());
  }

  @Test
  void membersThatDoNotRejoinInTimeAreDroppedFromTheNextGeneration() {
    String[] ids = stableGroupOfTwo();
    CompletableFuture<JoinGroupResponse> rejoin =
        group.join(join(ids[0], null, protocols("range")));
    assertFalse(rejoin.isDone(), "the join waits for the other member to rejoin");
    clock.addAndGet(REBALANCE);
    tick();
    JoinGroupResponse r = rejoin.join();
    assertEquals(2, r.generationId());
    assertEquals(1, r.members().size(), "the member that did not rejoin is gone");
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.heartbeat(ids[1], null, 2));
  }

  @Test
  void aLeaderThatNeverSendsItsAssignmentIsRemoved() {
    CompletableFuture<JoinGroupResponse> a = joinDynamic("range");
    CompletableFuture<JoinGroupResponse> b = joinDynamic("range");
    tick();
    JoinGroupResponse ja = a.join();
    JoinGroupResponse jb = b.join();
    String follower = ja.memberId().equals(ja.leader()) ? jb.memberId() : ja.memberId();
    CompletableFuture<SyncGroupResponse> waiting =
        group.sync(follower, null, 1, "consumer", "range", Map.of());
    clock.addAndGet(REBALANCE);
    tick();
    assertEquals(Errors.REBALANCE_IN_PROGRESS, waiting.join().errorCode());
    assertEquals("PreparingRebalance", group.state());
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.heartbeat(ja.leader(), null, 1));
  }

  @Test
  void aMemberToldToRejoinWithItsIdThatNeverComesBackIsForgotten() {
    assertFalse(group.hasTimeouts(), "a new group has nothing to time out");
    JoinGroupResponse first = group.join(join("", null, protocols("range"))).join();
    assertEquals(Errors.MEMBER_ID_REQUIRED, first.errorCode());
    assertEquals("Empty", group.state());
    assertTrue(group.hasTimeouts(), "the member told to rejoin has a deadline");
    clock.addAndGet(SESSION + 1);
    tick();
    assertFalse(group.hasTimeouts(), "forgotten");
    JoinGroupResponse late = group.join(join(first.memberId(), null, protocols("range"))).join();
    assertEquals(Errors.UNKNOWN_MEMBER_ID, late.errorCode());
  }

  @Test
  void syncAndHeartbeatErrorsNameTheProblem() {
    String[] ids = stableGroupOfTwo();
    assertEquals(Errors.ILLEGAL_GENERATION, sync(ids[0], 5, Map.of()).errorCode());
    assertEquals(Errors.UNKNOWN_MEMBER_ID, sync("stranger", 1, Map.of()).errorCode());
    SyncGroupResponse wrongProtocol =
        group.sync(ids[0], null, 1, "consumer", "roundrobin", Map.of()).join();
    assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL, wrongProtocol.errorCode());
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.heartbeat(ids[0], "no-such-instance", 1));
  }
}
