package io.kelp.gateway.coordinator.classic;

import io.kelp.codec.message.SyncGroupResponse;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicGroup.State;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SyncGroup side of a classic group: checking a SyncGroup against the generation, storing the
 * leader's assignment before anyone sees it, and answering the members waiting in SyncGroup with
 * their share or an error. {@link ClassicGroup} owns the state and the rebalance. Every method runs
 * under the group's monitor: they are called only from the group's synchronized methods.
 */
final class ClassicSync {
  // The group's story is told by one logger, whichever class tells it.
  private static final Logger LOG = LoggerFactory.getLogger(ClassicGroup.class);

  private final ClassicGroup group;
  private final ClassicMembers members;
  private final GroupCoordinator coordinator;

  ClassicSync(ClassicGroup group, ClassicMembers members, GroupCoordinator coordinator) {
    this.group = group;
    this.members = members;
    this.coordinator = coordinator;
  }

  /** Handles a SyncGroup; the future completes once the leader's assignment is stored. */
  CompletableFuture<SyncGroupResponse> sync(
      String memberId,
      String groupInstanceId,
      int generation,
      String requestProtocolType,
      String requestProtocolName,
      Map<String, byte[]> assignments) {
    CompletableFuture<SyncGroupResponse> future = new CompletableFuture<>();
    short error = validateSync(memberId, groupInstanceId, generation);
    if (error == Errors.NONE
        && (inconsistent(requestProtocolType, group.protocolTypeOrNull())
            || inconsistent(requestProtocolName, group.protocolName()))) {
      error = Errors.INCONSISTENT_GROUP_PROTOCOL;
    }
    if (error != Errors.NONE) {
      future.complete(new SyncGroupResponse().setErrorCode(error));
      return future;
    }
    switch (group.currentState()) {
      case PREPARING_REBALANCE ->
          future.complete(new SyncGroupResponse().setErrorCode(Errors.REBALANCE_IN_PROGRESS));
      case COMPLETING_REBALANCE -> {
        ClassicMember member = members.get(memberId);
        member.awaitSync(future);
        group.forgetPendingSync(memberId);
        if (members.isLeader(memberId)) {
          storeAssignment(assignments);
        }
      }
      case STABLE -> {
        group.forgetPendingSync(memberId);
        ClassicMember member = members.get(memberId);
        future.complete(
            new SyncGroupResponse()
                .setProtocolType(group.protocolTypeOrNull())
                .setProtocolName(group.protocolName())
                .setAssignment(member.assignment()));
      }
      default -> future.complete(new SyncGroupResponse().setErrorCode(Errors.UNKNOWN_MEMBER_ID));
    }
    return future;
  }

  private short validateSync(String memberId, String groupInstanceId, int generation) {
    State state = group.currentState();
    if (state == State.DEAD) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    if (state == State.EMPTY) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    short error = group.validateMember(memberId, groupInstanceId);
    if (error != Errors.NONE) {
      return error;
    }
    return generation == group.generationId() ? Errors.NONE : Errors.ILLEGAL_GENERATION;
  }

  private static boolean inconsistent(String fromRequest, String groupValue) {
    return fromRequest != null && groupValue != null && !fromRequest.equals(groupValue);
  }

  /**
   * Gives every member its share of the leader's assignment and stores it; only once it is stored
   * are the members waiting in SyncGroup answered and the group Stable. When it cannot be stored,
   * they get NOT_COORDINATOR and the group rebalances.
   */
  private void storeAssignment(Map<String, byte[]> assignments) {
    for (ClassicMember m : members.all()) {
      m.assignment(assignments.getOrDefault(m.memberId(), ClassicMember.EMPTY));
    }
    try {
      group.persist();
    } catch (IOException e) {
      LOG.warn(
          "Group {}: could not store the assignment of generation {}",
          group.groupId(),
          group.generationId(),
          e);
      for (ClassicMember m : members.all()) {
        m.assignment(ClassicMember.EMPTY);
      }
      propagateAssignment(Errors.NOT_COORDINATOR);
      group.prepareRebalance("the assignment could not be stored");
      return;
    }
    propagateAssignment(Errors.NONE);
    group.transition(State.STABLE);
  }

  /**
   * Answers every member waiting in SyncGroup: with its assignment when {@code error} is NONE, else
   * with the error. A member answered gets a fresh session timeout.
   */
  void propagateAssignment(short error) {
    long now = coordinator.nowMs();
    for (ClassicMember m : members.all()) {
      SyncGroupResponse response = new SyncGroupResponse().setErrorCode(error);
      if (error == Errors.NONE) {
        response.setProtocolType(group.protocolTypeOrNull()).setProtocolName(group.protocolName());
        response.setAssignment(m.assignment());
      }
      if (m.completeSync(response)) {
        m.heartbeatDeadlineMs(now + m.sessionTimeoutMs());
      }
    }
  }
}
