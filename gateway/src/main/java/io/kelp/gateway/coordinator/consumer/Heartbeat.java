package io.kelp.gateway.coordinator.consumer;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One ConsumerGroupHeartbeat as the group sees it. Null fields mean "unchanged since the last
 * heartbeat", as on the wire.
 *
 * @param ownedPartitions the partitions the member says it owns, or null when it did not say
 */
public record Heartbeat(
    String groupId,
    String memberId,
    int memberEpoch,
    String instanceId,
    String rackId,
    int rebalanceTimeoutMs,
    List<String> subscribedTopicNames,
    String subscribedTopicRegex,
    String serverAssignor,
    Map<UUID, Set<Integer>> ownedPartitions,
    String clientId,
    String clientHost) {

  /** A heartbeat that carries every field a member must send in full (join or after errors). */
  boolean isFull() {
    return memberEpoch == 0
        || (rebalanceTimeoutMs != -1 && subscribedTopicNames != null && ownedPartitions != null);
  }
}
