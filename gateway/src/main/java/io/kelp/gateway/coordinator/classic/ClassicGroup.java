package io.kelp.gateway.coordinator.classic;

import io.kelp.codec.message.JoinGroupResponse;
import io.kelp.codec.message.JoinGroupResponse.JoinGroupResponseMember;
import io.kelp.codec.message.SyncGroupResponse;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.Group;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicMember.Protocol;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
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
 * <p>Every public method takes the group's monitor; the store write it may do happens under it.
 */
public final class ClassicGroup extends Group {
  private static final Logger LOG = LoggerFactory.getLogger(ClassicGroup.class);

  /** The type name this group's stored state carries. */
  public static final String TYPE = "classic";

  /** How long a member that joined for the first time may take to finish joining (Kafka's). */
  static final long NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

  private static final long NONE = Long.MAX_VALUE;

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
  private State state = State.EMPTY;
  private State previousState = State.EMPTY;
  private long stateTimestampMs;
  private int generationId;
  private String protocolType;
  private String protocolName;
  private final ClassicMembers members = new ClassicMembers();
  private final Set<String> pendingSync = new HashSet<>();
  private long joinDeadlineMs = NONE;
  private long initialRemainingMs;
  private boolean newMemberAdded;
  private long syncDeadlineMs = NONE;

  public ClassicGroup(String groupId, GroupCoordinator coordinator) {
    super(groupId);
    this.coordinator = coordinator;
    this.stateTimestampMs = coordinator.nowMs();
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
    if (state == State.DEAD) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    if (generationId < 0 && state == State.EMPTY) {
      return Errors.NONE;
    }
    if (generationId >= 0 || !memberId.isEmpty() || groupInstanceId != null) {
      short error = validateMember(memberId, groupInstanceId);
      if (error != Errors.NONE) {
        return error;
      }
      if (generationId != this.generationId) {
        return Errors.ILLEGAL_GENERATION;
      }
    } else if (state != State.EMPTY) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    return state == State.COMPLETING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
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
    ClassicMember m = members.get(memberId);
    if (m != null && (state == State.STABLE || state == State.PREPARING_REBALANCE)) {
      m.heartbeatDeadlineMs(coordinator.nowMs() + m.sessionTimeoutMs());
    }
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
    CompletableFuture<JoinGroupResponse> future = new CompletableFuture<>();
    boolean unknown = r.memberId().isEmpty();
    if (!acceptJoiningMember(r.memberId())) {
      future.complete(error(Errors.GROUP_MAX_SIZE_REACHED, ""));
    } else if (state == State.DEAD) {
      future.complete(error(Errors.COORDINATOR_NOT_AVAILABLE, r.memberId()));
    } else if (!supportsProtocols(r.protocolType(), r.protocols())) {
      future.complete(error(Errors.INCONSISTENT_GROUP_PROTOCOL, r.memberId()));
    } else if (unknown) {
      joinNewMember(r, future);
    } else {
      joinExistingMember(r, future);
    }
    return future;
  }

  private boolean acceptJoiningMember(String memberId) {
    int max = coordinator.config().maxGroupSize();
    return switch (state) {
      case EMPTY, DEAD -> true;
      case PREPARING_REBALANCE -> {
        ClassicMember m = members.get(memberId);
        yield (m != null && m.awaitingJoin()) || members.awaitingJoinCount() < max;
      }
      case COMPLETING_REBALANCE, STABLE -> members.get(memberId) != null || members.size() < max;
    };
  }

  private void joinNewMember(JoinRequest r, CompletableFuture<JoinGroupResponse> future) {
    String prefix = r.groupInstanceId() != null ? r.groupInstanceId() : r.clientId();
    String newId = prefix + "-" + UUID.randomUUID();
    if (r.groupInstanceId() != null) {
      String existing = members.staticMemberId(r.groupInstanceId());
      if (existing != null) {
        LOG.info(
            "Group {}: static member {} rejoins with a new member id {} (was {}) in state {}",
            groupId(),
            r.groupInstanceId(),
            newId,
            existing,
            state.label);
        replaceStaticMember(r, existing, newId, future);
      } else {
        addMemberAndRebalance(r, newId, future);
      }
    } else if (r.requireKnownMemberId()) {
      members.addPending(newId, coordinator.nowMs() + r.sessionTimeoutMs());
      future.complete(error(Errors.MEMBER_ID_REQUIRED, newId));
    } else {
      addMemberAndRebalance(r, newId, future);
    }
  }

  private void joinExistingMember(JoinRequest r, CompletableFuture<JoinGroupResponse> future) {
    String memberId = r.memberId();
    if (members.isPending(memberId)) {
      if (r.groupInstanceId() != null) {
        future.complete(error(Errors.INVALID_REQUEST, memberId));
        return;
      }
      members.removePending(memberId);
      addMemberAndRebalance(r, memberId, future);
      return;
    }
    short error = validateMember(memberId, r.groupInstanceId());
    if (error != Errors.NONE) {
      future.complete(error(error, memberId));
      return;
    }
    ClassicMember member = members.get(memberId);
    member.client(r.clientId(), r.clientHost());
    switch (state) {
      case PREPARING_REBALANCE -> updateMemberAndRebalance(member, r, future);
      case COMPLETING_REBALANCE -> {
        if (member.matches(r.protocols())) {
          future.complete(joinResponse(member, members.isLeader(memberId), false));
        } else {
          updateMemberAndRebalance(member, r, future);
        }
      }
      case STABLE -> {
        if (members.isLeader(memberId) || !member.matches(r.protocols())) {
          updateMemberAndRebalance(member, r, future);
        } else {
          future.complete(joinResponse(member, false, false));
        }
      }
      default -> future.complete(error(Errors.UNKNOWN_MEMBER_ID, memberId));
    }
  }

  private void addMemberAndRebalance(
      JoinRequest r, String memberId, CompletableFuture<JoinGroupResponse> future) {
    ClassicMember member =
        new ClassicMember(
            memberId,
            r.groupInstanceId(),
            r.clientId(),
            r.clientHost(),
            r.rebalanceTimeoutMs(),
            r.sessionTimeoutMs(),
            r.protocolType(),
            r.protocols());
    member.isNew(true);
    if (state == State.PREPARING_REBALANCE && previousState == State.EMPTY) {
      newMemberAdded = true;
    }
    if (members.isEmpty()) {
      protocolType = r.protocolType();
    }
    members.add(member);
    member.awaitJoin(future);
    member.heartbeatDeadlineMs(coordinator.nowMs() + NEW_MEMBER_JOIN_TIMEOUT_MS);
    LOG.info(
        "Group {}: member {} (instance {}, client {}) joins in state {}; reason: {}",
        groupId(),
        memberId,
        r.groupInstanceId(),
        r.clientId(),
        state.label,
        r.reason() == null ? "not given" : r.reason());
    rebalanceOrCompleteJoin();
  }

  private void updateMemberAndRebalance(
      ClassicMember member, JoinRequest r, CompletableFuture<JoinGroupResponse> future) {
    members.changeProtocols(member, r.protocols());
    member.update(r.protocols(), r.rebalanceTimeoutMs(), r.sessionTimeoutMs());
    if (member.awaitingJoin()) {
      // A second JoinGroup while one waits: the first gets no answer in Kafka either; answer it
      // with an error so the client's older request does not hang.
      member.completeJoin(error(Errors.UNKNOWN_MEMBER_ID, member.memberId()));
    }
    member.awaitJoin(future);
    rebalanceOrCompleteJoin();
  }

  private void replaceStaticMember(
      JoinRequest r, String oldId, String newId, CompletableFuture<JoinGroupResponse> future) {
    ClassicMember member = members.get(oldId);
    // The old incarnation is fenced: whatever it waits for ends with FENCED_INSTANCE_ID.
    member.completeJoin(error(Errors.FENCED_INSTANCE_ID, oldId));
    member.completeSync(new SyncGroupResponse().setErrorCode(Errors.FENCED_INSTANCE_ID));
    members.rename(member, newId);
    member.client(r.clientId(), r.clientHost());
    pendingSync.remove(oldId);
    member.heartbeatDeadlineMs(coordinator.nowMs() + r.sessionTimeoutMs());
    List<Protocol> oldProtocols = member.protocols();
    int oldRebalanceTimeout = member.rebalanceTimeoutMs();
    int oldSessionTimeout = member.sessionTimeoutMs();
    members.changeProtocols(member, r.protocols());
    member.update(r.protocols(), r.rebalanceTimeoutMs(), r.sessionTimeoutMs());
    switch (state) {
      case STABLE -> {
        if (protocolName != null && protocolName.equals(members.selectProtocol())) {
          // Same protocol: no rebalance; the member gets its old assignment back in SyncGroup.
          try {
            persist();
          } catch (IOException e) {
            LOG.warn("Group {}: could not store static member {}", groupId(), newId, e);
            members.changeProtocols(member, oldProtocols);
            member.update(oldProtocols, oldRebalanceTimeout, oldSessionTimeout);
            members.rename(member, oldId);
            future.complete(error(Errors.NOT_COORDINATOR, ""));
            return;
          }
          boolean leader = members.isLeader(newId);
          if (r.supportsSkipAssignment()) {
            future.complete(joinResponse(member, leader, leader));
          } else {
            future.complete(joinResponse(member, false, false));
          }
        } else {
          member.awaitJoin(future);
          rebalanceOrCompleteJoin();
        }
      }
      case COMPLETING_REBALANCE -> {
        member.awaitJoin(future);
        prepareRebalance("static member " + r.groupInstanceId() + " rejoined during a rebalance");
      }
      default -> {
        member.awaitJoin(future);
        maybeCompleteJoin();
      }
    }
  }

  private boolean supportsProtocols(String type, List<Protocol> offered) {
    if (state == State.EMPTY) {
      return type != null && !type.isEmpty() && !offered.isEmpty();
    }
    if (protocolType == null || !protocolType.equals(type)) {
      return false;
    }
    return members.anySupportedByAll(offered);
  }

  private short validateMember(String memberId, String groupInstanceId) {
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

  private void rebalanceOrCompleteJoin() {
    if (state == State.EMPTY || state == State.STABLE || state == State.COMPLETING_REBALANCE) {
      prepareRebalance("membership changed");
    } else {
      maybeCompleteJoin();
    }
  }

  private void prepareRebalance(String reason) {
    if (state == State.COMPLETING_REBALANCE) {
      for (ClassicMember m : members.all()) {
        m.assignment(ClassicMember.EMPTY);
      }
      propagateAssignment(Errors.REBALANCE_IN_PROGRESS);
    }
    pendingSync.clear();
    syncDeadlineMs = NONE;
    boolean initial = state == State.EMPTY;
    long now = coordinator.nowMs();
    if (initial) {
      long delay = coordinator.config().initialRebalanceDelayMs();
      initialRemainingMs = Math.max(members.rebalanceTimeoutMs() - delay, 0);
      newMemberAdded = false;
      joinDeadlineMs = now + delay;
    }
    transition(State.PREPARING_REBALANCE);
    LOG.info(
        "Group {}: preparing to rebalance, generation {} ({})", groupId(), generationId, reason);
    if (!initial) {
      if (members.allJoined()) {
        completeJoin();
      } else {
        joinDeadlineMs = now + members.rebalanceTimeoutMs();
      }
    }
  }

  private void maybeCompleteJoin() {
    if (state == State.PREPARING_REBALANCE && previousState != State.EMPTY && members.allJoined()) {
      completeJoin();
    }
  }

  private void completeJoin() {
    joinDeadlineMs = NONE;
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
      joinDeadlineMs = coordinator.nowMs() + members.rebalanceTimeoutMs();
      return;
    }
    generationId++;
    pendingSync.clear();
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
      m.completeJoin(joinResponse(m, members.isLeader(m.memberId()), false));
      m.heartbeatDeadlineMs(now + m.sessionTimeoutMs());
      m.isNew(false);
      pendingSync.add(m.memberId());
    }
    syncDeadlineMs = now + members.rebalanceTimeoutMs();
  }

  private void removeMember(String memberId) {
    ClassicMember m = members.remove(memberId);
    if (m != null) {
      m.completeJoin(error(Errors.UNKNOWN_MEMBER_ID, ""));
      m.completeSync(new SyncGroupResponse().setErrorCode(Errors.UNKNOWN_MEMBER_ID));
    }
    pendingSync.remove(memberId);
  }

  /** Removes a member that left or failed, and rebalances the others. */
  private void removeMemberAndRebalance(String memberId, String reason) {
    removeMember(memberId);
    LOG.info("Group {}: member {} removed: {}", groupId(), memberId, reason);
    if (state == State.STABLE || state == State.COMPLETING_REBALANCE) {
      prepareRebalance(reason);
    } else if (state == State.PREPARING_REBALANCE && members.allJoined()) {
      completeJoin();
    }
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
    CompletableFuture<SyncGroupResponse> future = new CompletableFuture<>();
    short error = validateSync(memberId, groupInstanceId, generation);
    if (error == Errors.NONE
        && (inconsistent(requestProtocolType, protocolType)
            || inconsistent(requestProtocolName, protocolName))) {
      error = Errors.INCONSISTENT_GROUP_PROTOCOL;
    }
    if (error != Errors.NONE) {
      future.complete(new SyncGroupResponse().setErrorCode(error));
      return future;
    }
    switch (state) {
      case PREPARING_REBALANCE ->
          future.complete(new SyncGroupResponse().setErrorCode(Errors.REBALANCE_IN_PROGRESS));
      case COMPLETING_REBALANCE -> {
        ClassicMember member = members.get(memberId);
        member.awaitSync(future);
        pendingSync.remove(memberId);
        if (members.isLeader(memberId)) {
          storeAssignment(assignments);
        }
      }
      case STABLE -> {
        pendingSync.remove(memberId);
        ClassicMember member = members.get(memberId);
        future.complete(
            new SyncGroupResponse()
                .setProtocolType(protocolType)
                .setProtocolName(protocolName)
                .setAssignment(member.assignment()));
      }
      default -> future.complete(new SyncGroupResponse().setErrorCode(Errors.UNKNOWN_MEMBER_ID));
    }
    return future;
  }

  private short validateSync(String memberId, String groupInstanceId, int generation) {
    if (state == State.DEAD) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    if (state == State.EMPTY) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    short error = validateMember(memberId, groupInstanceId);
    if (error != Errors.NONE) {
      return error;
    }
    return generation == generationId ? Errors.NONE : Errors.ILLEGAL_GENERATION;
  }

  private static boolean inconsistent(String fromRequest, String groupValue) {
    return fromRequest != null && groupValue != null && !fromRequest.equals(groupValue);
  }

  private void storeAssignment(Map<String, byte[]> assignments) {
    Map<String, byte[]> previous = new HashMap<>();
    for (ClassicMember m : members.all()) {
      previous.put(m.memberId(), m.assignment());
      m.assignment(assignments.getOrDefault(m.memberId(), ClassicMember.EMPTY));
    }
    try {
      persist();
    } catch (IOException e) {
      LOG.warn(
          "Group {}: could not store the assignment of generation {}", groupId(), generationId, e);
      for (ClassicMember m : members.all()) {
        m.assignment(ClassicMember.EMPTY);
      }
      propagateAssignment(Errors.NOT_COORDINATOR);
      prepareRebalance("the assignment could not be stored");
      return;
    }
    propagateAssignment(Errors.NONE);
    transition(State.STABLE);
  }

  private void propagateAssignment(short error) {
    long now = coordinator.nowMs();
    for (ClassicMember m : members.all()) {
      SyncGroupResponse response = new SyncGroupResponse().setErrorCode(error);
      if (error == Errors.NONE) {
        response.setProtocolType(protocolType).setProtocolName(protocolName);
        response.setAssignment(m.assignment());
      }
      if (m.completeSync(response)) {
        m.heartbeatDeadlineMs(now + m.sessionTimeoutMs());
      }
    }
  }

  // ---- Heartbeat and LeaveGroup ----

  /** Handles a Heartbeat and returns its error code. */
  public synchronized short heartbeat(String memberId, String groupInstanceId, int generation) {
    if (state == State.DEAD) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    short error = validateMember(memberId, groupInstanceId);
    if (error != Errors.NONE) {
      return error;
    }
    if (generation != generationId) {
      return Errors.ILLEGAL_GENERATION;
    }
    ClassicMember m = members.get(memberId);
    switch (state) {
      case EMPTY:
        return Errors.UNKNOWN_MEMBER_ID;
      case PREPARING_REBALANCE:
        m.heartbeatDeadlineMs(coordinator.nowMs() + m.sessionTimeoutMs());
        return Errors.REBALANCE_IN_PROGRESS;
      default:
        m.heartbeatDeadlineMs(coordinator.nowMs() + m.sessionTimeoutMs());
        return Errors.NONE;
    }
  }

  /** One member leaving, as LeaveGroup names it. */
  public record Leaving(String memberId, String groupInstanceId, String reason) {}

  /**
   * Handles a LeaveGroup: returns the error code per leaving member, or null when the whole request
   * fails with COORDINATOR_NOT_AVAILABLE because the group is dead.
   */
  public synchronized List<Short> leave(List<Leaving> leaving) {
    if (state == State.DEAD) {
      return null;
    }
    List<Short> results = new ArrayList<>();
    List<String> left = new ArrayList<>();
    for (Leaving l : leaving) {
      String memberId = l.memberId();
      if (memberId.isEmpty()) {
        String existing =
            l.groupInstanceId() == null ? null : members.staticMemberId(l.groupInstanceId());
        if (existing == null) {
          results.add(Errors.UNKNOWN_MEMBER_ID);
          continue;
        }
        memberId = existing;
      } else if (members.removePending(memberId)) {
        results.add(Errors.NONE);
        continue;
      } else {
        short error = validateMember(memberId, l.groupInstanceId());
        if (error != Errors.NONE) {
          results.add(error);
          continue;
        }
      }
      removeMember(memberId);
      left.add(memberId);
      LOG.info(
          "Group {}: member {} left; reason: {}",
          groupId(),
          memberId,
          l.reason() == null ? "not given" : l.reason());
      results.add(Errors.NONE);
    }
    if (!left.isEmpty()) {
      if (state == State.STABLE || state == State.COMPLETING_REBALANCE) {
        prepareRebalance("members left: " + left);
      } else if (state == State.PREPARING_REBALANCE) {
        maybeCompleteJoin();
      }
    }
    return results;
  }

  // ---- timeouts ----

  @Override
  public synchronized void tick(long now) {
    if (state == State.DEAD) {
      return;
    }
    for (String id : members.expirePending(now)) {
      LOG.info("Group {}: pending member {} did not rejoin in time", groupId(), id);
      if (state == State.PREPARING_REBALANCE && members.allJoined()) {
        completeJoin();
      }
    }
    for (ClassicMember m : members.snapshot()) {
      boolean satisfied = !m.isNew() && (m.awaitingJoin() || m.awaitingSync());
      if (!satisfied && m.heartbeatDeadlineMs() <= now && members.get(m.memberId()) == m) {
        removeMemberAndRebalance(m.memberId(), "session timeout expired");
      }
    }
    if (state == State.PREPARING_REBALANCE && joinDeadlineMs <= now) {
      if (previousState == State.EMPTY
          && newMemberAdded
          && initialRemainingMs > 0
          && coordinator.config().initialRebalanceDelayMs() > 0) {
        // The initial delay stretches while members keep arriving, up to the rebalance timeout.
        long delay = Math.min(coordinator.config().initialRebalanceDelayMs(), initialRemainingMs);
        initialRemainingMs = Math.max(initialRemainingMs - delay, 0);
        newMemberAdded = false;
        joinDeadlineMs = now + delay;
      } else {
        completeJoin();
      }
    }
    if ((state == State.COMPLETING_REBALANCE || state == State.STABLE) && syncDeadlineMs <= now) {
      syncDeadlineMs = NONE;
      if (!pendingSync.isEmpty()) {
        List<String> late = new ArrayList<>(pendingSync);
        for (String id : late) {
          removeMember(id);
        }
        prepareRebalance("members did not send SyncGroup in time: " + late);
      }
    }
  }

  // ---- responses ----

  private JoinGroupResponse joinResponse(ClassicMember m, boolean withMembers, boolean skip) {
    JoinGroupResponse r =
        new JoinGroupResponse()
            .setMemberId(m.memberId())
            .setGenerationId(generationId)
            .setProtocolType(protocolType)
            .setProtocolName(protocolName)
            .setLeader(members.leaderId() == null ? "" : members.leaderId())
            .setSkipAssignment(skip);
    if (withMembers) {
      List<JoinGroupResponseMember> list = new ArrayList<>(members.size());
      for (ClassicMember each : members.all()) {
        byte[] metadata = each.metadata(protocolName);
        list.add(
            new JoinGroupResponseMember()
                .setMemberId(each.memberId())
                .setGroupInstanceId(each.groupInstanceId())
                .setMetadata(metadata == null ? ClassicMember.EMPTY : metadata));
      }
      r.setMembers(list);
    }
    return r;
  }

  private static JoinGroupResponse error(short code, String memberId) {
    return new JoinGroupResponse()
        .setErrorCode(code)
        .setMemberId(memberId)
        .setGenerationId(-1)
        .setProtocolName(null)
        .setLeader("");
  }

  private void transition(State next) {
    previousState = state;
    state = next;
    stateTimestampMs = coordinator.nowMs();
  }

  // ---- description ----

  /** A member as DescribeGroups shows it. */
  public record MemberView(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      byte[] metadata,
      byte[] assignment) {}

  /** The group as DescribeGroups shows it: state, protocol and members. */
  public record View(
      String state, String protocolType, String protocolName, List<MemberView> members) {}

  public synchronized View describe() {
    List<MemberView> list = new ArrayList<>();
    boolean stable = state == State.STABLE;
    for (ClassicMember m : members.all()) {
      byte[] metadata = protocolName == null ? null : m.metadata(protocolName);
      list.add(
          new MemberView(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              stable && metadata != null ? metadata : ClassicMember.EMPTY,
              stable ? m.assignment() : ClassicMember.EMPTY));
    }
    return new View(
        state.label,
        protocolType == null ? "" : protocolType,
        stable && protocolName != null ? protocolName : "",
        list);
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

  // ---- stored state ----

  private void persist() throws IOException {
    coordinator.store().writeMetadata(groupId(), ClassicGroupState.encode(this.snapshot()));
  }

  private ClassicGroupState snapshot() {
    List<ClassicGroupState.Member> list = new ArrayList<>();
    for (ClassicMember m : members.all()) {
      byte[] subscription = protocolName == null ? null : m.metadata(protocolName);
      list.add(
          new ClassicGroupState.Member(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              m.rebalanceTimeoutMs(),
              m.sessionTimeoutMs(),
              subscription == null ? ClassicMember.EMPTY : subscription,
              m.assignment()));
    }
    return new ClassicGroupState(
        protocolType, protocolName, generationId, members.leaderId(), stateTimestampMs, list);
  }

  /** Rebuilds a group from its stored state; members get a fresh session timeout. */
  static ClassicGroup restore(String groupId, ClassicGroupState s, GroupCoordinator coordinator) {
    ClassicGroup g = new ClassicGroup(groupId, coordinator);
    synchronized (g) {
      g.generationId = s.generation();
      g.protocolType = s.protocolType();
      g.protocolName = s.protocolName();
      long now = coordinator.nowMs();
      for (ClassicGroupState.Member m : s.members()) {
        List<Protocol> protocols =
            s.protocolName() == null
                ? List.of()
                : List.of(new Protocol(s.protocolName(), m.subscription()));
        ClassicMember member =
            new ClassicMember(
                m.memberId(),
                m.groupInstanceId(),
                m.clientId(),
                m.clientHost(),
                m.rebalanceTimeoutMs(),
                m.sessionTimeoutMs(),
                s.protocolType(),
                protocols);
        member.assignment(m.assignment());
        member.heartbeatDeadlineMs(now + m.sessionTimeoutMs());
        g.members.add(member);
      }
      g.members.restoreLeader(s.leaderId());
      g.state = g.members.isEmpty() ? State.EMPTY : State.STABLE;
      g.previousState = g.state;
      g.stateTimestampMs = s.stateTimestampMs() > 0 ? s.stateTimestampMs() : now;
    }
    return g;
  }
}
