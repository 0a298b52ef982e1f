package io.kelp.gateway.coordinator.classic;

import io.kelp.codec.message.JoinGroupResponse;
import io.kelp.codec.message.JoinGroupResponse.JoinGroupResponseMember;
import io.kelp.codec.message.SyncGroupResponse;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicGroup.JoinRequest;
import io.kelp.gateway.coordinator.classic.ClassicGroup.State;
import io.kelp.gateway.coordinator.classic.ClassicMember.Protocol;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JoinGroup side of a classic group: whether a member may join, the paths of a new member, a
 * known member, a member told to rejoin with its new id (MEMBER_ID_REQUIRED) and a static member
 * that comes back with a new member id, and the JoinGroup responses. It decides who joins and how;
 * {@link ClassicGroup} owns the state and runs the rebalance. Every method runs under the group's
 * monitor: they are called only from the group's synchronized methods.
 */
final class ClassicJoin {
  // The group's story is told by one logger, whichever class tells it.
  private static final Logger LOG = LoggerFactory.getLogger(ClassicGroup.class);

  private final ClassicGroup group;
  private final ClassicMembers members;
  private final GroupCoordinator coordinator;

  ClassicJoin(ClassicGroup group, ClassicMembers members, GroupCoordinator coordinator) {
    this.group = group;
    this.members = members;
    this.coordinator = coordinator;
  }

  /** Handles a JoinGroup; the future completes when the member's join phase ends. */
  CompletableFuture<JoinGroupResponse> join(JoinRequest r) {
    CompletableFuture<JoinGroupResponse> future = new CompletableFuture<>();
    boolean unknown = r.memberId().isEmpty();
    if (!acceptJoiningMember(r.memberId())) {
      future.complete(error(Errors.GROUP_MAX_SIZE_REACHED, ""));
    } else if (group.currentState() == State.DEAD) {
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
    return switch (group.currentState()) {
      case EMPTY, DEAD -> true;
      case PREPARING_REBALANCE -> {
        ClassicMember m = members.get(memberId);
        yield (m != null && m.awaitingJoin()) || members.awaitingJoinCount() < max;
      }
      case COMPLETING_REBALANCE, STABLE -> members.get(memberId) != null || members.size() < max;
    };
  }

  private boolean supportsProtocols(String type, List<Protocol> offered) {
    if (group.currentState() == State.EMPTY) {
      return type != null && !type.isEmpty() && !offered.isEmpty();
    }
    String protocolType = group.protocolTypeOrNull();
    if (protocolType == null || !protocolType.equals(type)) {
      return false;
    }
    return members.anySupportedByAll(offered);
  }

  private void joinNewMember(JoinRequest r, CompletableFuture<JoinGroupResponse> future) {
    String prefix = r.groupInstanceId() != null ? r.groupInstanceId() : r.clientId();
    String newId = prefix + "-" + UUID.randomUUID();
    if (r.groupInstanceId() != null) {
      String existing = members.staticMemberId(r.groupInstanceId());
      if (existing != null) {
        LOG.info(
            "Group {}: static member {} rejoins with a new member id {} (was {}) in state {}",
            group.groupId(),
            r.groupInstanceId(),
            newId,
            existing,
            group.currentState().label);
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
    short error = group.validateMember(memberId, r.groupInstanceId());
    if (error != Errors.NONE) {
      future.complete(error(error, memberId));
      return;
    }
    ClassicMember member = members.get(memberId);
    member.client(r.clientId(), r.clientHost());
    switch (group.currentState()) {
      case PREPARING_REBALANCE -> updateMemberAndRebalance(member, r, future);
      case COMPLETING_REBALANCE -> {
        if (member.matches(r.protocols())) {
          future.complete(response(member, members.isLeader(memberId), false));
        } else {
          updateMemberAndRebalance(member, r, future);
        }
      }
      case STABLE -> {
        if (members.isLeader(memberId) || !member.matches(r.protocols())) {
          updateMemberAndRebalance(member, r, future);
        } else {
          future.complete(response(member, false, false));
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
    group.addMember(member);
    member.awaitJoin(future);
    member.heartbeatDeadlineMs(coordinator.nowMs() + ClassicGroup.NEW_MEMBER_JOIN_TIMEOUT_MS);
    LOG.info(
        "Group {}: member {} (instance {}, client {}) joins in state {}; reason: {}",
        group.groupId(),
        memberId,
        r.groupInstanceId(),
        r.clientId(),
        group.currentState().label,
        r.reason() == null ? "not given" : r.reason());
    group.rebalanceOrCompleteJoin();
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
    group.rebalanceOrCompleteJoin();
  }

  private void replaceStaticMember(
      JoinRequest r, String oldId, String newId, CompletableFuture<JoinGroupResponse> future) {
    ClassicMember member = members.get(oldId);
    // The old incarnation is fenced: whatever it waits for ends with FENCED_INSTANCE_ID.
    member.completeJoin(error(Errors.FENCED_INSTANCE_ID, oldId));
    member.completeSync(new SyncGroupResponse().setErrorCode(Errors.FENCED_INSTANCE_ID));
    members.rename(member, newId);
    member.client(r.clientId(), r.clientHost());
    group.forgetPendingSync(oldId);
    member.heartbeatDeadlineMs(coordinator.nowMs() + r.sessionTimeoutMs());
    List<Protocol> oldProtocols = member.protocols();
    int oldRebalanceTimeout = member.rebalanceTimeoutMs();
    int oldSessionTimeout = member.sessionTimeoutMs();
    members.changeProtocols(member, r.protocols());
    member.update(r.protocols(), r.rebalanceTimeoutMs(), r.sessionTimeoutMs());
    switch (group.currentState()) {
      case STABLE -> {
        String protocolName = group.protocolName();
        if (protocolName != null && protocolName.equals(members.selectProtocol())) {
          // Same protocol: no rebalance; the member gets its old assignment back in SyncGroup.
          try {
            group.persist();
          } catch (IOException e) {
            LOG.warn("Group {}: could not store static member {}", group.groupId(), newId, e);
            members.changeProtocols(member, oldProtocols);
            member.update(oldProtocols, oldRebalanceTimeout, oldSessionTimeout);
            members.rename(member, oldId);
            future.complete(error(Errors.NOT_COORDINATOR, ""));
            return;
          }
          boolean leader = members.isLeader(newId);
          if (r.supportsSkipAssignment()) {
            future.complete(response(member, leader, leader));
          } else {
            future.complete(response(member, false, false));
          }
        } else {
          member.awaitJoin(future);
          group.rebalanceOrCompleteJoin();
        }
      }
      case COMPLETING_REBALANCE -> {
        member.awaitJoin(future);
        group.prepareRebalance(
            "static member " + r.groupInstanceId() + " rejoined during a rebalance");
      }
      default -> {
        member.awaitJoin(future);
        group.maybeCompleteJoin();
      }
    }
  }

  // ---- responses ----

  /**
   * The JoinGroup response for {@code m} in the current generation; the leader's ({@code
   * withMembers}) lists every member with its metadata for the group's protocol.
   */
  JoinGroupResponse response(ClassicMember m, boolean withMembers, boolean skip) {
    String protocolName = group.protocolName();
    JoinGroupResponse r =
        new JoinGroupResponse()
            .setMemberId(m.memberId())
            .setGenerationId(group.generationId())
            .setProtocolType(group.protocolTypeOrNull())
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

  /** A JoinGroup that fails with {@code code}. */
  static JoinGroupResponse error(short code, String memberId) {
    return new JoinGroupResponse()
        .setErrorCode(code)
        .setMemberId(memberId)
        .setGenerationId(-1)
        .setProtocolName(null)
        .setLeader("");
  }
}
