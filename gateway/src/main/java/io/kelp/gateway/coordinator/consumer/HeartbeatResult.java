package io.kelp.gateway.coordinator.consumer;

import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The answer to a successful heartbeat.
 *
 * @param assignment the member's partitions by topic id, or null when they did not change and the
 *     heartbeat was not a full one
 */
public record HeartbeatResult(
    String memberId,
    int memberEpoch,
    int heartbeatIntervalMs,
    Map<UUID, Set<Integer>> assignment) {}
