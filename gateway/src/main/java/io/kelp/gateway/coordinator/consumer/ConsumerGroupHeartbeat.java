package io.kelp.gateway.coordinator.consumer;

import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.GroupCoordinator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ConsumerGroupHeartbeat side of a consumer group: which member a heartbeat speaks for (new,
 * known, or a static member that comes back with a new member id), whether it is fenced, applying
 * its fields, and moving the member one reconciliation step towards the target assignment; and
 * leaves (epoch -1, or -2 for a static member that will come back). {@link ConsumerGroup} owns the
 * state. Every method runs under the group's monitor: they are called only from the group's
 * methods, which require it.
 */
final class ConsumerGroupHeartbeat {
  // The group's story is told by one logger, whichever class tells it.
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroup.class);

  private final ConsumerGroup group;
  private final GroupCoordinator coordinator;

  ConsumerGroupHeartbeat(ConsumerGroup group, GroupCoordinator coordinator) {
    this.group = group;
    this.coordinator = coordinator;
  }

  /**
   * Handles a heartbeat of a joining or present member (epoch 0 or above): updates the member,
   * bumps the group epoch if membership or subscriptions changed, computes a new target assignment
   * if the epoch moved, and reconciles the member one step.
   *
   * @throws GroupError when the member is unknown or fenced, or the group full
   */
  HeartbeatResult heartbeat(Heartbeat hb) {
    long now = coordinator.nowMs();
    int max = coordinator.config().maxGroupSize();
    Map<String, ConsumerGroupMember> members = group.members;
    if (members.size() >= max && (hb.memberId().isEmpty() || !members.containsKey(hb.memberId()))) {
      throw new GroupError(
          Errors.GROUP_MAX_SIZE_REACHED,
          "The consumer group has reached its maximum capacity of " + max + " members.");
    }
    String memberId = hb.memberId().isEmpty() ? ConsumerGroups.newMemberId() : hb.memberId();
    boolean joining = hb.memberEpoch() == 0;
    ConsumerGroupMember existing;
    ConsumerGroupMember replaced = null;
    if (hb.instanceId() == null) {
      existing = members.get(memberId);
      if (existing == null && !joining) {
        throw unknownMember(memberId);
      }
      if (existing != null) {
        checkEpoch(existing, hb.memberEpoch(), hb.ownedPartitions());
      }
    } else {
      ConsumerGroupMember old = group.staticMember(hb.instanceId());
      if (joining && old != null) {
        if (old.memberEpoch != ConsumerGroup.LEAVE_STATIC_EPOCH) {
          throw new GroupError(
              Errors.UNRELEASED_INSTANCE_ID,
              "Static member "
                  + memberId
                  + " with instance id "
                  + hb.instanceId()
                  + " cannot join the group because the instance id is owned by "
                  + old.memberId
                  + " member.");
        }
        replaced = old;
        existing = null;
      } else if (joining) {
        existing = members.get(memberId);
      } else {
        checkStaticMember(old, memberId, hb.instanceId());
        checkEpoch(old, hb.memberEpoch(), hb.ownedPartitions());
        existing = old;
      }
    }
    ConsumerGroupMember member;
    if (replaced != null) {
      member = replaced.copy();
      member.memberId = memberId;
      member.memberEpoch = 0;
      member.previousMemberEpoch = 0;
      LOG.info(
          "Group {}: static member {} ({}) rejoins, replacing {}",
          group.groupId(),
          memberId,
          hb.instanceId(),
          replaced.memberId);
    } else if (existing != null) {
      member = existing.copy();
    } else {
      member = new ConsumerGroupMember(memberId);
      LOG.info("Group {}: member {} joins", group.groupId(), memberId);
    }
    boolean bump = update(member, hb) || (existing == null && replaced == null);
    return commit(hb, now, existing, replaced, member, bump);
  }

  private HeartbeatResult commit(
      Heartbeat hb,
      long now,
      ConsumerGroupMember existing,
      ConsumerGroupMember replaced,
      ConsumerGroupMember member,
      boolean bump) {
    if (replaced != null) {
      group.forget(replaced);
      Map<UUID, Set<Integer>> t = group.target.remove(replaced.memberId);
      if (t != null) {
        group.target.put(member.memberId, t);
      }
    }
    group.members.put(member.memberId, member);
    if (member.instanceId != null) {
      group.staticMembers.put(member.instanceId, member.memberId);
    }
    Map<String, ConsumerGroup.TopicMeta> now2 = group.computeSubscribed();
    if (!now2.equals(group.subscribed)) {
      group.subscribed = now2;
      bump = true;
    }
    if (bump) {
      group.groupEpoch++;
      LOG.info("Group {}: epoch {}", group.groupId(), group.groupEpoch);
    }
    if (group.groupEpoch > group.assignmentEpoch) {
      group.computeTargetAssignment();
    }
    MemberState stateBefore = member.state;
    Map<UUID, Set<Integer>> assignedBefore = existing == null ? null : existing.assigned;
    Map<UUID, Set<Integer>> pendingBefore = member.pendingRevocation;
    Reconciliation.next(
        member,
        group.assignmentEpoch,
        group.targetAssignment(member.memberId),
        hb.ownedPartitions(),
        ownersOtherThan(member.memberId));
    if (member.state != MemberState.UNREVOKED_PARTITIONS) {
      member.revocationDeadlineMs = Long.MAX_VALUE;
    } else if (stateBefore != MemberState.UNREVOKED_PARTITIONS
        || !pendingBefore.equals(member.pendingRevocation)) {
      member.revocationDeadlineMs = now + Math.max(0, member.rebalanceTimeoutMs);
    }
    member.sessionDeadlineMs = now + coordinator.config().consumerSessionTimeoutMs();
    group.scheduleTimeout(member);
    boolean changed = !member.assigned.equals(assignedBefore);
    return new HeartbeatResult(
        member.memberId,
        member.memberEpoch,
        coordinator.config().consumerHeartbeatIntervalMs(),
        hb.isFull() || changed ? member.assigned : null);
  }

  /** Applies the heartbeat's changed fields; true when the subscription changed. */
  private static boolean update(ConsumerGroupMember m, Heartbeat hb) {
    boolean changed = false;
    if (hb.instanceId() != null) {
      m.instanceId = hb.instanceId();
    }
    if (hb.rackId() != null) {
      m.rackId = hb.rackId();
    }
    if (hb.rebalanceTimeoutMs() != -1) {
      m.rebalanceTimeoutMs = hb.rebalanceTimeoutMs();
    }
    if (hb.serverAssignor() != null && !hb.serverAssignor().equals(m.serverAssignor)) {
      m.serverAssignor = hb.serverAssignor();
      changed = true;
    }
    if (hb.subscribedTopicNames() != null
        && !hb.subscribedTopicNames().equals(m.subscribedTopicNames)) {
      m.subscribedTopicNames = List.copyOf(hb.subscribedTopicNames());
      changed = true;
    }
    if (hb.subscribedTopicRegex() != null) {
      String regex = hb.subscribedTopicRegex().isEmpty() ? null : hb.subscribedTopicRegex();
      if (!Objects.equals(regex, m.subscribedTopicRegex)) {
        m.subscribedTopicRegex = regex;
        changed = true;
      }
    }
    m.clientId = hb.clientId();
    m.clientHost = hb.clientHost();
    return changed;
  }

  /** Handles a leave: epoch -1 removes the member; -2 keeps a static member's place for now. */
  HeartbeatResult leave(String memberId, String instanceId, int memberEpoch) {
    ConsumerGroupMember m;
    if (instanceId == null) {
      m = group.members.get(memberId);
      if (m == null) {
        throw unknownMember(memberId);
      }
    } else {
      m = group.staticMember(instanceId);
      checkStaticMember(m, memberId, instanceId);
      if (memberEpoch == ConsumerGroup.LEAVE_STATIC_EPOCH) {
        // The instance may come back within the session timeout and take its partitions back.
        LOG.info(
            "Group {}: static member {} ({}) leaves for now",
            group.groupId(),
            memberId,
            instanceId);
        m.memberEpoch = ConsumerGroup.LEAVE_STATIC_EPOCH;
        m.pendingRevocation = Partitions.NONE;
        m.revocationDeadlineMs = Long.MAX_VALUE;
        return new HeartbeatResult(m.memberId, ConsumerGroup.LEAVE_STATIC_EPOCH, 0, null);
      }
    }
    LOG.info("Group {}: member {} leaves", group.groupId(), memberId);
    group.fence(m);
    return new HeartbeatResult(memberId, memberEpoch, 0, null);
  }

  // ---- whether the heartbeat's member may speak

  private void checkEpoch(
      ConsumerGroupMember m, int received, Map<UUID, Set<Integer>> ownedPartitions) {
    if (received > m.memberEpoch) {
      throw fencedEpoch("greater", received, m.memberEpoch);
    }
    // The previous epoch is fine if the member owns no more than it is assigned: the response
    // that bumped its epoch may have been lost.
    if (received < m.memberEpoch
        && (received != m.previousMemberEpoch || !isSubset(ownedPartitions, m.assigned))) {
      throw fencedEpoch("smaller", received, m.memberEpoch);
    }
  }

  private static boolean isSubset(Map<UUID, Set<Integer>> owned, Map<UUID, Set<Integer>> of) {
    if (owned == null) {
      return false;
    }
    for (Map.Entry<UUID, Set<Integer>> e : owned.entrySet()) {
      Set<Integer> ps = of.get(e.getKey());
      if (!e.getValue().isEmpty() && (ps == null || !ps.containsAll(e.getValue()))) {
        return false;
      }
    }
    return true;
  }

  private static GroupError fencedEpoch(String which, int received, int known) {
    return new GroupError(
        Errors.FENCED_MEMBER_EPOCH,
        "The consumer group member has a "
            + which
            + " member epoch ("
            + received
            + ") than the one known by the group coordinator ("
            + known
            + "). The member must abandon all its partitions and rejoin.");
  }

  private void checkStaticMember(ConsumerGroupMember m, String memberId, String instanceId) {
    if (m == null) {
      throw new GroupError(Errors.UNKNOWN_MEMBER_ID, "Instance id " + instanceId + " is unknown.");
    }
    if (!m.memberId.equals(memberId)) {
      throw new GroupError(
          Errors.FENCED_INSTANCE_ID,
          "Static member "
              + memberId
              + " with instance id "
              + instanceId
              + " was fenced by member "
              + m.memberId
              + ".");
    }
  }

  private GroupError unknownMember(String memberId) {
    return new GroupError(
        Errors.UNKNOWN_MEMBER_ID,
        "Member " + memberId + " is not a member of group " + group.groupId() + ".");
  }

  /** The partitions other members own or have still to revoke, which this one must not get yet. */
  private Reconciliation.Owners ownersOtherThan(String memberId) {
    Map<UUID, Set<Integer>> owned = new HashMap<>();
    for (ConsumerGroupMember m : group.members.values()) {
      if (!m.memberId.equals(memberId)) {
        m.assigned.forEach((t, ps) -> owned.computeIfAbsent(t, k -> new HashSet<>()).addAll(ps));
        m.pendingRevocation.forEach(
            (t, ps) -> owned.computeIfAbsent(t, k -> new HashSet<>()).addAll(ps));
      }
    }
    return (topic, partition) -> Partitions.contains(owned, topic, partition);
  }
}
