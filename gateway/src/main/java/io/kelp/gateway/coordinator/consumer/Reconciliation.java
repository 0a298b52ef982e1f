package io.kelp.gateway.coordinator.consumer;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Moves one member's assignment a step towards the group's target assignment, as Kafka's consumer
 * group protocol reconciles: a member first gives up the partitions it no longer should own,
 * keeping its epoch until a heartbeat no longer lists them; only then does it move to the target
 * epoch and get new partitions, and of those only the ones no other member still owns.
 */
final class Reconciliation {
  private Reconciliation() {}

  /** Whether a partition is owned (assigned or pending revocation) by another member. */
  @FunctionalInterface
  interface Owners {
    boolean ownedByOther(UUID topic, int partition);
  }

  /**
   * @param member the member as it is now; changed in place and returned
   * @param owned the partitions the member said it owns in this heartbeat, or null when it did not
   *     say
   */
  static ConsumerGroupMember next(
      ConsumerGroupMember member,
      int targetEpoch,
      Map<UUID, Set<Integer>> target,
      Map<UUID, Set<Integer>> owned,
      Owners owners) {
    switch (member.state) {
      case STABLE:
        if (member.memberEpoch == targetEpoch) {
          return member;
        }
        return compute(member, member.memberEpoch, targetEpoch, target, owned, owners);
      case UNREVOKED_PARTITIONS:
        if (ownsAny(owned, member.pendingRevocation)) {
          return member;
        }
        return compute(member, member.memberEpoch + 1, targetEpoch, target, owned, owners);
      case UNRELEASED_PARTITIONS:
      default:
        return compute(member, member.memberEpoch, targetEpoch, target, owned, owners);
    }
  }

  /** True when {@code owned} names any of {@code partitions}, or is unknown (null). */
  static boolean ownsAny(Map<UUID, Set<Integer>> owned, Map<UUID, Set<Integer>> partitions) {
    if (owned == null) {
      return true;
    }
    for (Map.Entry<UUID, Set<Integer>> e : owned.entrySet()) {
      Set<Integer> p = partitions.get(e.getKey());
      if (p != null) {
        for (int partition : e.getValue()) {
          if (p.contains(partition)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static ConsumerGroupMember compute(
      ConsumerGroupMember member,
      int epochWhileRevoking,
      int targetEpoch,
      Map<UUID, Set<Integer>> target,
      Map<UUID, Set<Integer>> owned,
      Owners owners) {
    boolean unreleased = false;
    Map<UUID, Set<Integer>> keep = new TreeMap<>();
    Map<UUID, Set<Integer>> revoke = new TreeMap<>();
    Map<UUID, Set<Integer>> add = new TreeMap<>();
    Set<UUID> topics = new HashSet<>(target.keySet());
    topics.addAll(member.assigned.keySet());
    for (UUID topic : topics) {
      Set<Integer> want = target.getOrDefault(topic, Set.of());
      Set<Integer> have = member.assigned.getOrDefault(topic, Set.of());
      Set<Integer> kept = new TreeSet<>(have);
      kept.retainAll(want);
      Set<Integer> gone = new TreeSet<>(have);
      gone.removeAll(kept);
      Set<Integer> fresh = new TreeSet<>(want);
      fresh.removeAll(kept);
      unreleased |= fresh.removeIf(p -> owners.ownedByOther(topic, p));
      putIfNotEmpty(keep, topic, kept);
      putIfNotEmpty(revoke, topic, gone);
      putIfNotEmpty(add, topic, fresh);
    }
    if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
      member.state = MemberState.UNREVOKED_PARTITIONS;
      member.updateEpoch(epochWhileRevoking);
      member.assigned = keep;
      member.pendingRevocation = revoke;
      return member;
    }
    add.forEach((t, ps) -> keep.computeIfAbsent(t, k -> new TreeSet<>()).addAll(ps));
    member.state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
    member.updateEpoch(targetEpoch);
    member.assigned = keep;
    member.pendingRevocation = Partitions.NONE;
    return member;
  }

  private static void putIfNotEmpty(Map<UUID, Set<Integer>> m, UUID topic, Set<Integer> ps) {
    if (!ps.isEmpty()) {
      m.put(topic, ps);
    }
  }
}
