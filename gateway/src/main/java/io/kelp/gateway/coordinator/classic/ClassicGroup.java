package io.kelp.gateway.coordinator.classic;

import io.kelp.codec.message.JoinGroupResponse;
import io.kelp.codec.message.SyncGroupResponse;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.Group;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicMember.Protocol;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group that speaks the classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup): the
 * broker collects the members' protocols, one member (the leader) computes the assignment on the
 * client side, and the broker hands each member its share. The protocol type is opaque here, so
 * consumers ({@code consumer}), Connect workers ({@code connect}) and any other client-side
 * protocol work alike.
 *
 * <p>States and transitions follow Kafka's: Empty → PreparingRebalance (members rejoin, bounded by
 * the largest rebalance timeout; the first rebalance of an empty group waits
 * group.initial.rebalance.delay.ms for more members) → CompletingRebalance (new generation; the
 * leader sends the assignment in SyncGroup, bounded by the rebalance timeout) → Stable. Members
 * that stop heartbeating for their session timeout are removed and the group rebalances.
 *
 * <p>Durability: the group's membership (generation, protocol, leader, members with their
 * subscription and assignment) is written to the store before a new assignment is handed out and
 * when the group becomes empty, so a restarted coordinator resumes the generation and members keep
 * heartbeating without a rebalance.
 *
 * <p>This class owns the group's state and runs the rebalance (join phase, generations); {@link
 * ClassicJoin} decides how a JoinGroup joins, {@link ClassicSync} handles SyncGroup and hands out
 * the leader's assignment, {@link ClassicHeartbeat} handles Heartbeat, LeaveGroup and the
 * OffsetCommit check, {@link ClassicTimeouts} keeps the deadlines and acts when one passes, {@link
 * ClassicGroupState} is the stored form and {@link ClassicGroupView} what DescribeGroups shows.
 *
 * <p>Every public method takes the group's monitor; the store write it may do happens under it. The
 * classes above are called only from those methods, so they run under it too, as do the
 * package-private methods here that they call.
 */
public final class ClassicGroup extends Group {
  private static final Logger LOG = LoggerFactory.getLogger(ClassicGroup.class);

  /** The type name this group's stored state carries. */
  public static final String TYPE = "classic";

  /** How long a member that joined for the first time may take to finish joining (Kafka's). */
  static final long NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

  /** The group's state, with the names ListGroups and DescribeGroups use. */
  enum State {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    final String label;

    State(String label) {
      this.label = label;
    }
  }

  private final GroupCoordinator coordinator;

  /** Volatile so that {@link #hasTimeouts} can read it without the monitor; changed under it. */
  private volatile State state = State.EMPTY;

  private State previousState = State.EMPTY;
  private long stateTimestampMs;
  private int generationId;
  private String protocolType;
  private String protocolName;
  private final ClassicMembers members = new ClassicMembers();
  private final ClassicJoin joins;
  private final ClassicSync syncs;
  private final ClassicHeartbeat heartbeats;
  private final ClassicTimeouts timeouts;

  public ClassicGroup(String groupId, GroupCoordinator coordinator) {
    super(groupId);
    this.coordinator = coordinator;
    this.stateTimestampMs = coordinator.nowMs();
    this.joins = new ClassicJoin(this, members, coordinator);
    this.syncs = new ClassicSync(this, members, coordinator);
    this.heartbeats = new ClassicHeartbeat(this, members, coordinator);
    this.timeouts = new ClassicTimeouts(this, members, coordinator);
  }

  // ---- what every group answers ----

  @Override
  public String groupType() {
    return TYPE;
  }

  @Override
  public synchronized String state() {
    return state.label;
  }

  @Override
  public synchronized String protocolType() {
    return protocolType == null ? "" : protocolType;
  }

  @Override
  public synchronized boolean isEmpty() {
    return state == State.EMPTY || state == State.DEAD;
  }

  @Override
  public synchronized boolean isDead() {
    return state == State.DEAD;
  }

  @Override
  public synchronized void markDead() {
    transition(State.DEAD);
  }

  /** When the group entered its current state (ms since the epoch). */
  public synchronized long stateTimestampMs() {
    return stateTimestampMs;
  }

  @Override
  public synchronized short validateOffsetCommit(
      String memberId, String groupInstanceId, int generationId, short apiVersion) {
    return heartbeats.validateOffsetCommit(memberId, groupInstanceId, generationId);
  }

  /**
   * Kafka's answer for classic groups: a group of protocol type {@code consumer} is subscribed to
   * the topics its members' subscriptions name (all of them when one cannot be read); groups of
   * other protocol types are not subscribed to anything the broker can tell.
   */
  @Override
  public synchronized boolean isSubscribedToTopic(String topic) {
    if (members.isEmpty() || !"consumer".equals(protocolType)) {
      return false;
    }
    for (ClassicMember m : members.all()) {
      byte[] metadata = protocolName == null ? null : m.metadata(protocolName);
      Set<String> topics = ConsumerSubscription.topics(metadata);
      if (topics == null || topics.contains(topic)) {
        return true;
      }
    }
    return false;
  }

  /** An offset commit from a member counts as a heartbeat, as in Kafka. */
  public synchronized void touch(String memberId) {
    heartbeats.touch(memberId);
  }

  @Override
  public synchronized short validateOffsetFetch(String memberId, int memberEpoch) {
    return state == State.DEAD ? Errors.GROUP_ID_NOT_FOUND : Errors.NONE;
  }

  // ---- JoinGroup ----

  /** A JoinGroup request as the group sees it. */
  public record JoinRequest(
      String memberId,
      String groupInstanceId,
      String protocolType,
      List<Protocol> protocols,
      int sessionTimeoutMs,
      int rebalanceTimeoutMs,
      String reason,
      String clientId,
      String clientHost,
      boolean requireKnownMemberId,
      boolean supportsSkipAssignment) {}

  /** Handles a JoinGroup; the future completes when the member's join phase ends. */
  public synchronized CompletableFuture<JoinGroupResponse> join(JoinRequest r) {
    return joins.join(r);
  }

  /** Checks a member id (and instance id) against the members; logs a fenced static member. */
  short validateMember(String memberId, String groupInstanceId) {
    short error = members.validate(memberId, groupInstanceId);
    if (error == Errors.FENCED_INSTANCE_ID) {
      LOG.info(
          "Group {}: member {} is fenced by {} for instance {}",
          groupId(),
          memberId,
          members.staticMemberId(groupInstanceId),
          groupInstanceId);
    }
    return error;
  }

  // ---- rebalancing ----

  /** After a member joined or changed: starts a rebalance, or ends the one under way if it can. */
  void rebalanceOrCompleteJoin() {
    if (state == State.EMPTY || state == State.STABLE || state == State.COMPLETING_REBALANCE) {
      prepareRebalance("membership changed");
    } else {
      maybeCompleteJoin();
    }
  }

  /**
   * Enters PreparingRebalance: members waiting in SyncGroup are told REBALANCE_IN_PROGRESS, and the
   * join phase gets its deadline (the initial delay for an empty group).
   */
  void prepareRebalance(String reason) {
    if (state == State.COMPLETING_REBALANCE) {
      for (ClassicMember m : members.all()) {
        m.assignment(ClassicMember.EMPTY);
      }
      syncs.propagateAssignment(Errors.REBALANCE_IN_PROGRESS);
    }
    timeouts.clearSync();
    boolean initial = state == State.EMPTY;
    long now = coordinator.nowMs();
    if (initial) {
      timeouts.startInitialDelay(now);
    }
    transition(State.PREPARING_REBALANCE);
    LOG.info(
        "Group {}: preparing to rebalance, generation {} ({})", groupId(), generationId, reason);
    if (!initial) {
      if (members.allJoined()) {
        completeJoin();
      } else {
        timeouts.awaitJoin(now);
      }
    }
  }

  /** Ends the join phase once every member rejoined, unless the initial delay runs. */
  void maybeCompleteJoin() {
    if (state == State.PREPARING_REBALANCE && !inInitialRebalance() && members.allJoined()) {
      completeJoin();
    }
  }

  /** The first rebalance of an empty group, whose join phase starts with the initial delay. */
  boolean inInitialRebalance() {
    return state == State.PREPARING_REBALANCE && previousState == State.EMPTY;
  }

  /** Ends the join phase: a new generation, or an empty group when no member is left. */
  void completeJoin() {
    timeouts.joinCompleted();
    List<String> gone = new ArrayList<>();
    for (ClassicMember m : members.all()) {
      if (!m.awaitingJoin() && !m.isStatic()) {
        gone.add(m.memberId());
      }
    }
    for (String id : gone) {
      removeMember(id);
    }
    if (!gone.isEmpty()) {
      LOG.info("Group {}: removed members that did not rejoin in time: {}", groupId(), gone);
    }
    if (state == State.DEAD) {
      return;
    }
    if (!members.electJoinedLeader() && !members.isEmpty()) {
      // Only static members that have not rejoined are left: wait for them, or for their sessions
      // to end.
      timeouts.awaitJoin(coordinator.nowMs());
      return;
    }
    generationId++;
    timeouts.clearSync();
    if (members.isEmpty()) {
      protocolName = null;
      transition(State.EMPTY);
      LOG.info("Group {}: generation {} is empty", groupId(), generationId);
      try {
        persist();
      } catch (IOException e) {
        LOG.warn("Group {}: could not store the empty generation {}", groupId(), generationId, e);
      }
      return;
    }
    protocolName = members.selectProtocol();
    transition(State.COMPLETING_REBALANCE);
    LOG.info(
        "Group {}: generation {} with {} members, protocol {}, leader {}",
        groupId(),
        generationId,
        members.size(),
        protocolName,
        members.leaderId());
    long now = coordinator.nowMs();
    for (ClassicMember m : members.all()) {
      m.completeJoin(joins.response(m, members.isLeader(m.memberId()), false));
      m.heartbeatDeadlineMs(now + m.sessionTimeoutMs());
      m.isNew(false);
      timeouts.awaitSync(m.memberId());
    }
    timeouts.startSyncDeadline(now);
  }

  /**
   * Adds a member that joined; the first one sets the group's protocol type, and one that joins
   * during the initial delay lets the delay stretch.
   */
  void addMember(ClassicMember member) {
    if (inInitialRebalance()) {
      timeouts.memberAddedDuringInitialDelay();
    }
    if (members.isEmpty()) {
      protocolType = member.protocolType();
    }
    members.add(member);
  }

  /** Removes a member; whatever it waits for in JoinGroup or SyncGroup ends UNKNOWN_MEMBER_ID. */
  void removeMember(String memberId) {
    ClassicMember m = members.remove(memberId);
    if (m != null) {
      m.completeJoin(ClassicJoin.error(Errors.UNKNOWN_MEMBER_ID, ""));
      m.completeSync(new SyncGroupResponse().setErrorCode(Errors.UNKNOWN_MEMBER_ID));
    }
    timeouts.forgetPendingSync(memberId);
  }

  // ---- SyncGroup ----

  /** Handles a SyncGroup; the future completes once the leader's assignment is stored. */
  public synchronized CompletableFuture<SyncGroupResponse> sync(
      String memberId,
      String groupInstanceId,
      int generation,
      String requestProtocolType,
      String requestProtocolName,
      Map<String, byte[]> assignments) {
    return syncs.sync(
        memberId,
        groupInstanceId,
        generation,
        requestProtocolType,
        requestProtocolName,
        assignments);
  }

  // ---- Heartbeat and LeaveGroup ----

  /** Handles a Heartbeat and returns its error code. */
  public synchronized short heartbeat(String memberId, String groupInstanceId, int generation) {
    return heartbeats.heartbeat(memberId, groupInstanceId, generation);
  }

  /** One member leaving, as LeaveGroup names it. */
  public record Leaving(String memberId, String groupInstanceId, String reason) {}

  /**
   * Handles a LeaveGroup: returns the error code per leaving member, or null when the whole request
   * fails with COORDINATOR_NOT_AVAILABLE because the group is dead.
   */
  public synchronized List<Short> leave(List<Leaving> leaving) {
    return heartbeats.leave(leaving);
  }

  // ---- timeouts ----

  @Override
  public synchronized void tick(long now) {
    timeouts.expire(now);
  }

  /**
   * An empty group has no deadlines but those of members told to rejoin with their new id, and a
   * dead one none at all.
   */
  @Override
  public boolean hasTimeouts() {
    State s = state;
    return s != State.DEAD && (s != State.EMPTY || members.hasPending());
  }

  /** Enters {@code next}, remembering the state it leaves and when. */
  void transition(State next) {
    previousState = state;
    state = next;
    stateTimestampMs = coordinator.nowMs();
  }

  // ---- description ----

  /** The group as DescribeGroups shows it. */
  public synchronized ClassicGroupView describe() {
    return ClassicGroupView.of(state, protocolType, protocolName, members);
  }

  /** Member ids, for logs and tests. */
  synchronized Collection<String> memberIds() {
    List<String> ids = new ArrayList<>();
    members.all().forEach(m -> ids.add(m.memberId()));
    return ids;
  }

  synchronized int generationId() {
    return generationId;
  }

  synchronized String leaderId() {
    return members.leaderId();
  }

  // ---- for the classes the group delegates to; the caller holds the monitor ----

  State currentState() {
    return state;
  }

  /** The protocol type the first member set, null before; {@link #protocolType()} shows "" then. */
  String protocolTypeOrNull() {
    return protocolType;
  }

  /** The protocol of the current generation, null when it has none. */
  String protocolName() {
    return protocolName;
  }

  /** The member sent SyncGroup, or is gone: the group no longer waits for its SyncGroup. */
  void forgetPendingSync(String memberId) {
    timeouts.forgetPendingSync(memberId);
  }

  // ---- stored state ----

  /** Writes the group's membership to the store; the caller holds the monitor. */
  void persist() throws IOException {
    ClassicGroupState s =
        ClassicGroupState.of(protocolType, protocolName, generationId, stateTimestampMs, members);
    coordinator.store().writeMetadata(groupId(), ClassicGroupState.encode(s));
  }

  /** Rebuilds a group from its stored state; members get a fresh session timeout. */
  static ClassicGroup restore(String groupId, ClassicGroupState s, GroupCoordinator coordinator) {
    ClassicGroup g = new ClassicGroup(groupId, coordinator);
    synchronized (g) {
      g.generationId = s.generation();
      g.protocolType = s.protocolType();
      g.protocolName = s.protocolName();
      long now = coordinator.nowMs();
      s.restoreMembers(g.members, now);
      g.state = g.members.isEmpty() ? State.EMPTY : State.STABLE;
      g.previousState = g.state;
      g.stateTimestampMs = s.stateTimestampMs() > 0 ? s.stateTimestampMs() : now;
    }
    return g;
  }
}
