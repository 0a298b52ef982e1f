package io.kelp.gateway.coordinator.consumer;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One member of a consumer group. Read and changed only under the group's monitor; a heartbeat
 * works on a {@link #copy()} and the group swaps it in when the heartbeat succeeds.
 */
public final class ConsumerGroupMember {
  String memberId;
  String instanceId;
  String rackId;
  String clientId = "";
  String clientHost = "";
  List<String> subscribedTopicNames = List.of();
  String subscribedTopicRegex;
  String serverAssignor;
  int rebalanceTimeoutMs = -1;
  int memberEpoch;
  int previousMemberEpoch;
  MemberState state = MemberState.STABLE;
  Map<UUID, Set<Integer>> assigned = Partitions.NONE;
  Map<UUID, Set<Integer>> pendingRevocation = Partitions.NONE;

  /** When the session times out unless the member heartbeats (milliseconds, group clock). */
  long sessionDeadlineMs = Long.MAX_VALUE;

  /** When the member is fenced unless it revokes what it was asked to; MAX_VALUE when none. */
  long revocationDeadlineMs = Long.MAX_VALUE;

  ConsumerGroupMember(String memberId) {
    this.memberId = memberId;
  }

  ConsumerGroupMember copy() {
    ConsumerGroupMember c = new ConsumerGroupMember(memberId);
    c.instanceId = instanceId;
    c.rackId = rackId;
    c.clientId = clientId;
    c.clientHost = clientHost;
    c.subscribedTopicNames = subscribedTopicNames;
    c.subscribedTopicRegex = subscribedTopicRegex;
    c.serverAssignor = serverAssignor;
    c.rebalanceTimeoutMs = rebalanceTimeoutMs;
    c.memberEpoch = memberEpoch;
    c.previousMemberEpoch = previousMemberEpoch;
    c.state = state;
    c.assigned = assigned;
    c.pendingRevocation = pendingRevocation;
    c.sessionDeadlineMs = sessionDeadlineMs;
    c.revocationDeadlineMs = revocationDeadlineMs;
    return c;
  }

  /**
   * Moves to {@code epoch}, remembering the one before: a member whose response with the new epoch
   * was lost may still heartbeat with the previous one.
   */
  void updateEpoch(int epoch) {
    previousMemberEpoch = memberEpoch;
    memberEpoch = epoch;
  }

  public String memberId() {
    return memberId;
  }

  public String instanceId() {
    return instanceId;
  }

  public String rackId() {
    return rackId;
  }

  public String clientId() {
    return clientId;
  }

  public String clientHost() {
    return clientHost;
  }

  public List<String> subscribedTopicNames() {
    return subscribedTopicNames;
  }

  public String subscribedTopicRegex() {
    return subscribedTopicRegex;
  }

  public String serverAssignor() {
    return serverAssignor;
  }

  public int rebalanceTimeoutMs() {
    return rebalanceTimeoutMs;
  }

  public int memberEpoch() {
    return memberEpoch;
  }

  public int previousMemberEpoch() {
    return previousMemberEpoch;
  }

  public MemberState state() {
    return state;
  }

  /** The partitions it owns now, by topic id. */
  public Map<UUID, Set<Integer>> assigned() {
    return assigned;
  }

  /** The partitions it was asked to give up and has not yet. */
  public Map<UUID, Set<Integer>> pendingRevocation() {
    return pendingRevocation;
  }

  @Override
  public String toString() {
    return "member "
        + memberId
        + (instanceId == null ? "" : " (instance " + instanceId + ")")
        + " epoch "
        + memberEpoch
        + " "
        + state;
  }
}
