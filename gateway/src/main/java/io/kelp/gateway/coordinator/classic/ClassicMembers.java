package io.kelp.gateway.coordinator.classic;

import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.classic.ClassicMember.Protocol;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who is in a classic group: the members in join order, the static members by instance id, the
 * members told to rejoin with their new id (MEMBER_ID_REQUIRED) and not yet back, the leader, and
 * how many members offer each protocol, from which the group's protocol is chosen. Guarded by the
 * group's monitor; {@link ClassicGroup} decides what happens, this class keeps the books.
 */
final class ClassicMembers {
  private final Map<String, ClassicMember> members = new LinkedHashMap<>();

  /**
   * Concurrent so that {@link #hasPending} can be read without the group's monitor; changed under
   * it.
   */
  private final Map<String, Long> pending = new ConcurrentHashMap<>();

  private final Map<String, String> staticMembers = new HashMap<>();
  private final Map<String, Integer> protocolSupport = new HashMap<>();
  private String leaderId;

  ClassicMember get(String memberId) {
    return members.get(memberId);
  }

  int size() {
    return members.size();
  }

  boolean isEmpty() {
    return members.isEmpty();
  }

  Collection<ClassicMember> all() {
    return members.values();
  }

  /** A copy of the members, for loops that remove some. */
  List<ClassicMember> snapshot() {
    return new ArrayList<>(members.values());
  }

  String leaderId() {
    return leaderId;
  }

  boolean isLeader(String memberId) {
    return memberId.equals(leaderId);
  }

  /** The member id that holds a static instance id, or null. */
  String staticMemberId(String groupInstanceId) {
    return staticMembers.get(groupInstanceId);
  }

  /** Adds a member; the first one becomes the leader. */
  void add(ClassicMember member) {
    members.put(member.memberId(), member);
    if (member.isStatic()) {
      staticMembers.put(member.groupInstanceId(), member.memberId());
    }
    count(member.protocols(), 1);
    if (leaderId == null) {
      leaderId = member.memberId();
    }
  }

  /** Removes a member (and a pending one of that id); a new leader is picked if it led. */
  ClassicMember remove(String memberId) {
    ClassicMember m = members.remove(memberId);
    if (m != null) {
      count(m.protocols(), -1);
      if (m.isStatic()) {
        staticMembers.remove(m.groupInstanceId());
      }
    }
    if (memberId.equals(leaderId)) {
      Iterator<String> it = members.keySet().iterator();
      leaderId = it.hasNext() ? it.next() : null;
    }
    pending.remove(memberId);
    return m;
  }

  /** Gives a static member a new member id, keeping its place, leadership and assignment. */
  void rename(ClassicMember member, String newId) {
    String oldId = member.memberId();
    members.remove(oldId);
    member.memberId(newId);
    members.put(newId, member);
    staticMembers.put(member.groupInstanceId(), newId);
    if (oldId.equals(leaderId)) {
      leaderId = newId;
    }
  }

  /** Replaces a member's protocols, keeping the support counts right. */
  void changeProtocols(ClassicMember member, List<Protocol> next) {
    count(member.protocols(), -1);
    count(next, 1);
  }

  private void count(List<Protocol> protocols, int delta) {
    for (Protocol p : protocols) {
      protocolSupport.merge(p.name(), delta, Integer::sum);
    }
    protocolSupport.values().removeIf(v -> v <= 0);
  }

  /** True when at least one of {@code offered} is offered by every member. */
  boolean anySupportedByAll(List<Protocol> offered) {
    for (Protocol p : offered) {
      if (protocolSupport.getOrDefault(p.name(), 0) == members.size()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The group's protocol: among those every member offers, the one most members prefer (each member
   * votes for its first choice), as Kafka chooses.
   */
  String selectProtocol() {
    Set<String> candidates = new HashSet<>();
    for (Map.Entry<String, Integer> e : protocolSupport.entrySet()) {
      if (e.getValue() == members.size()) {
        candidates.add(e.getKey());
      }
    }
    Map<String, Integer> votes = new LinkedHashMap<>();
    for (ClassicMember m : members.values()) {
      String vote = m.vote(candidates);
      if (vote != null) {
        votes.merge(vote, 1, Integer::sum);
      }
    }
    String best = null;
    int bestVotes = -1;
    for (Map.Entry<String, Integer> e : votes.entrySet()) {
      if (e.getValue() > bestVotes) {
        best = e.getKey();
        bestVotes = e.getValue();
      }
    }
    return best;
  }

  /**
   * Keeps the leader if it rejoined, else makes the first rejoined member the leader. False when no
   * member rejoined.
   */
  boolean electJoinedLeader() {
    if (leaderId == null) {
      return false;
    }
    ClassicMember leader = members.get(leaderId);
    if (leader != null && leader.awaitingJoin()) {
      return true;
    }
    for (ClassicMember m : members.values()) {
      if (m.awaitingJoin()) {
        leaderId = m.memberId();
        return true;
      }
    }
    return false;
  }

  /** Restores the leader read back from the store, or the first member if it is gone. */
  void restoreLeader(String storedLeader) {
    if (storedLeader != null && members.containsKey(storedLeader)) {
      leaderId = storedLeader;
    }
  }

  int awaitingJoinCount() {
    int n = 0;
    for (ClassicMember m : members.values()) {
      if (m.awaitingJoin()) {
        n++;
      }
    }
    return n;
  }

  /** Every member has rejoined and no member told to rejoin with its new id is still away. */
  boolean allJoined() {
    return members.size() == awaitingJoinCount() && pending.isEmpty();
  }

  /** The longest rebalance timeout of the members: how long a rebalance may take. */
  int rebalanceTimeoutMs() {
    int max = 0;
    for (ClassicMember m : members.values()) {
      max = Math.max(max, m.rebalanceTimeoutMs());
    }
    return max;
  }

  /**
   * NONE when {@code memberId} is a member and, if an instance id is given, the one holding it;
   * FENCED_INSTANCE_ID when another member holds the instance id; else UNKNOWN_MEMBER_ID.
   */
  short validate(String memberId, String groupInstanceId) {
    if (groupInstanceId != null) {
      String existing = staticMembers.get(groupInstanceId);
      if (existing == null) {
        return Errors.UNKNOWN_MEMBER_ID;
      }
      if (!existing.equals(memberId)) {
        return Errors.FENCED_INSTANCE_ID;
      }
    }
    return members.containsKey(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
  }

  // ---- members told to rejoin with their new id ----

  void addPending(String memberId, long deadlineMs) {
    pending.put(memberId, deadlineMs);
  }

  boolean removePending(String memberId) {
    return pending.remove(memberId) != null;
  }

  boolean isPending(String memberId) {
    return pending.containsKey(memberId);
  }

  /** Whether a member told to rejoin with its new id is not back yet; safe without the monitor. */
  boolean hasPending() {
    return !pending.isEmpty();
  }

  /** Forgets pending members whose time to rejoin has passed, and returns them. */
  List<String> expirePending(long now) {
    List<String> gone = new ArrayList<>();
    for (Iterator<Map.Entry<String, Long>> it = pending.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Long> e = it.next();
      if (e.getValue() <= now) {
        it.remove();
        gone.add(e.getKey());
      }
    }
    return gone;
  }
}
