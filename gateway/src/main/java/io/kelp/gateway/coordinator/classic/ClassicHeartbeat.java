package io.kelp.gateway.coordinator.classic;

import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicGroup.Leaving;
import io.kelp.gateway.coordinator.classic.ClassicGroup.State;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests a member of a classic group sends between rebalances, checked against its membership
 * and generation: Heartbeat, which renews its session; OffsetCommit, which is checked much like a
 * Heartbeat and renews the session too; and LeaveGroup, after which the rest rebalance. {@link
 * ClassicGroup} owns the state and the rebalance. Every method runs under the group's monitor: they
 * are called only from the group's synchronized methods.
 */
final class ClassicHeartbeat {
  // The group's story is told by one logger, whichever class tells it.
  private static final Logger LOG = LoggerFactory.getLogger(ClassicGroup.class);

  private final ClassicGroup group;
  private final ClassicMembers members;
  private final GroupCoordinator coordinator;

  ClassicHeartbeat(ClassicGroup group, ClassicMembers members, GroupCoordinator coordinator) {
    this.group = group;
    this.members = members;
    this.coordinator = coordinator;
  }

  /** Handles a Heartbeat and returns its error code. */
  short heartbeat(String memberId, String groupInstanceId, int generation) {
    if (group.currentState() == State.DEAD) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    short error = group.validateMember(memberId, groupInstanceId);
    if (error != Errors.NONE) {
      return error;
    }
    if (generation != group.generationId()) {
      return Errors.ILLEGAL_GENERATION;
    }
    ClassicMember m = members.get(memberId);
    switch (group.currentState()) {
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

  /**
   * Whether an OffsetCommit may commit for the group: one without a generation when the group is
   * Empty; otherwise one from a known member of the current generation, and not while the group
   * waits for the leader's assignment.
   */
  short validateOffsetCommit(String memberId, String groupInstanceId, int generationId) {
    State state = group.currentState();
    if (state == State.DEAD) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    if (generationId < 0 && state == State.EMPTY) {
      return Errors.NONE;
    }
    if (generationId >= 0 || !memberId.isEmpty() || groupInstanceId != null) {
      short error = group.validateMember(memberId, groupInstanceId);
      if (error != Errors.NONE) {
        return error;
      }
      if (generationId != group.generationId()) {
        return Errors.ILLEGAL_GENERATION;
      }
    } else if (state != State.EMPTY) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    return state == State.COMPLETING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
  }

  /** An offset commit from a member counts as a heartbeat, as in Kafka. */
  void touch(String memberId) {
    ClassicMember m = members.get(memberId);
    State state = group.currentState();
    if (m != null && (state == State.STABLE || state == State.PREPARING_REBALANCE)) {
      m.heartbeatDeadlineMs(coordinator.nowMs() + m.sessionTimeoutMs());
    }
  }

  /**
   * Handles a LeaveGroup: returns the error code per leaving member, or null when the whole request
   * fails with COORDINATOR_NOT_AVAILABLE because the group is dead.
   */
  List<Short> leave(List<Leaving> leaving) {
    if (group.currentState() == State.DEAD) {
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
        short error = group.validateMember(memberId, l.groupInstanceId());
        if (error != Errors.NONE) {
          results.add(error);
          continue;
        }
      }
      group.removeMember(memberId);
      left.add(memberId);
      LOG.info(
          "Group {}: member {} left; reason: {}",
          group.groupId(),
          memberId,
          l.reason() == null ? "not given" : l.reason());
      results.add(Errors.NONE);
    }
    if (!left.isEmpty()) {
      State state = group.currentState();
      if (state == State.STABLE || state == State.COMPLETING_REBALANCE) {
        group.prepareRebalance("members left: " + left);
      } else if (state == State.PREPARING_REBALANCE) {
        group.maybeCompleteJoin();
      }
    }
    return results;
  }
}
