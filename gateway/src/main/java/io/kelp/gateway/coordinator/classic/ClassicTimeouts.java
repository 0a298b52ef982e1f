package io.kelp.gateway.coordinator.classic;

import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicGroup.State;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deadlines of a classic group and what happens when one passes: a member told to rejoin with
 * its new id that does not come back, a member whose session ends, the join phase (for an empty
 * group first the initial delay, which stretches while members keep arriving) and the members that
 * do not send SyncGroup for a new generation. {@link ClassicGroup} arms and clears the deadlines as
 * it rebalances; {@link #expire} acts on the ones that passed. Every method runs under the group's
 * monitor: they are called only from the group's synchronized methods and what they call.
 */
final class ClassicTimeouts {
  // The group's story is told by one logger, whichever class tells it.
  private static final Logger LOG = LoggerFactory.getLogger(ClassicGroup.class);

  private static final long NONE = Long.MAX_VALUE;

  private final ClassicGroup group;
  private final ClassicMembers members;
  private final GroupCoordinator coordinator;
  private final Set<String> pendingSync = new HashSet<>();
  private long joinDeadlineMs = NONE;
  private long initialRemainingMs;
  private boolean newMemberAdded;
  private long syncDeadlineMs = NONE;

  ClassicTimeouts(ClassicGroup group, ClassicMembers members, GroupCoordinator coordinator) {
    this.group = group;
    this.members = members;
    this.coordinator = coordinator;
  }

  // ---- the join phase ----

  /**
   * Starts the join phase of an empty group's first rebalance: it waits group.initial.rebalance
   * .delay.ms, and may wait that again while members keep arriving, up to the rebalance timeout.
   */
  void startInitialDelay(long now) {
    long delay = coordinator.config().initialRebalanceDelayMs();
    initialRemainingMs = Math.max(members.rebalanceTimeoutMs() - delay, 0);
    newMemberAdded = false;
    joinDeadlineMs = now + delay;
  }

  /** A member joined during the initial delay: the delay may stretch once more. */
  void memberAddedDuringInitialDelay() {
    newMemberAdded = true;
  }

  /** The join phase waits for the members to rejoin, at most the largest rebalance timeout. */
  void awaitJoin(long now) {
    joinDeadlineMs = now + members.rebalanceTimeoutMs();
  }

  /** The join phase ended. */
  void joinCompleted() {
    joinDeadlineMs = NONE;
  }

  // ---- SyncGroup ----

  /** The new generation waits for this member's SyncGroup. */
  void awaitSync(String memberId) {
    pendingSync.add(memberId);
  }

  /** The members awaited in SyncGroup have until the largest rebalance timeout from now. */
  void startSyncDeadline(long now) {
    syncDeadlineMs = now + members.rebalanceTimeoutMs();
  }

  /** The member sent SyncGroup, or is gone: the group no longer waits for its SyncGroup. */
  void forgetPendingSync(String memberId) {
    pendingSync.remove(memberId);
  }

  /** No SyncGroup is awaited any more: a rebalance starts over. */
  void clearSync() {
    pendingSync.clear();
    syncDeadlineMs = NONE;
  }

  // ---- what passed ----

  /**
   * Acts on every deadline that passed by {@code now}: forgets pending members, removes members
   * whose session ended, ends (or stretches) the join phase, and removes the members that did not
   * send SyncGroup in time; each removal rebalances the rest.
   */
  void expire(long now) {
    if (group.currentState() == State.DEAD) {
      return;
    }
    for (String id : members.expirePending(now)) {
      LOG.info("Group {}: pending member {} did not rejoin in time", group.groupId(), id);
      if (group.currentState() == State.PREPARING_REBALANCE && members.allJoined()) {
        group.completeJoin();
      }
    }
    for (ClassicMember m : members.snapshot()) {
      boolean satisfied = !m.isNew() && (m.awaitingJoin() || m.awaitingSync());
      if (!satisfied && m.heartbeatDeadlineMs() <= now && members.get(m.memberId()) == m) {
        removeMemberAndRebalance(m.memberId(), "session timeout expired");
      }
    }
    if (group.currentState() == State.PREPARING_REBALANCE && joinDeadlineMs <= now) {
      if (group.inInitialRebalance()
          && newMemberAdded
          && initialRemainingMs > 0
          && coordinator.config().initialRebalanceDelayMs() > 0) {
        // The initial delay stretches while members keep arriving, up to the rebalance timeout.
        long delay = Math.min(coordinator.config().initialRebalanceDelayMs(), initialRemainingMs);
        initialRemainingMs = Math.max(initialRemainingMs - delay, 0);
        newMemberAdded = false;
        joinDeadlineMs = now + delay;
      } else {
        group.completeJoin();
      }
    }
    State state = group.currentState();
    if ((state == State.COMPLETING_REBALANCE || state == State.STABLE) && syncDeadlineMs <= now) {
      syncDeadlineMs = NONE;
      if (!pendingSync.isEmpty()) {
        List<String> late = new ArrayList<>(pendingSync);
        for (String id : late) {
          group.removeMember(id);
        }
        group.prepareRebalance("members did not send SyncGroup in time: " + late);
      }
    }
  }

  /** Removes a member that failed, and rebalances the others. */
  private void removeMemberAndRebalance(String memberId, String reason) {
    group.removeMember(memberId);
    LOG.info("Group {}: member {} removed: {}", group.groupId(), memberId, reason);
    State state = group.currentState();
    if (state == State.STABLE || state == State.COMPLETING_REBALANCE) {
      group.prepareRebalance(reason);
    } else if (state == State.PREPARING_REBALANCE && members.allJoined()) {
      group.completeJoin();
    }
  }
}
