package io.kelp.gateway.coordinator;

import java.util.List;

/**
 * The group coordinator's settings, with Kafka's broker settings of the same meaning and defaults.
 *
 * @param initialRebalanceDelayMs group.initial.rebalance.delay.ms: how long the first rebalance of
 *     an empty classic group waits for more members to join
 * @param minSessionTimeoutMs group.min.session.timeout.ms
 * @param maxSessionTimeoutMs group.max.session.timeout.ms
 * @param maxGroupSize group.max.size
 * @param offsetsRetentionMs offsets.retention.minutes, in milliseconds
 * @param offsetsRetentionCheckIntervalMs offsets.retention.check.interval.ms
 * @param consumerSessionTimeoutMs group.consumer.session.timeout.ms (KIP-848 groups)
 * @param consumerHeartbeatIntervalMs group.consumer.heartbeat.interval.ms (KIP-848 groups)
 * @param consumerAssignors group.consumer.assignors, the first being the default
 * @param commitTimeoutMs offsets.commit.timeout.ms: how long a group request may wait (on the
 *     group's writes to the store, on the group's other requests) before its client is answered
 *     COORDINATOR_NOT_AVAILABLE, which it retries; Kafka bounds its coordinator's writes so
 */
public record GroupConfig(
    long initialRebalanceDelayMs,
    int minSessionTimeoutMs,
    int maxSessionTimeoutMs,
    int maxGroupSize,
    long offsetsRetentionMs,
    long offsetsRetentionCheckIntervalMs,
    int consumerSessionTimeoutMs,
    int consumerHeartbeatIntervalMs,
    List<String> consumerAssignors,
    long commitTimeoutMs) {

  /** Kafka's defaults. */
  public static GroupConfig defaults() {
    return new GroupConfig(
        3_000,
        6_000,
        1_800_000,
        Integer.MAX_VALUE,
        7L * 24 * 60 * 60 * 1000,
        600_000,
        45_000,
        5_000,
        List.of("uniform", "range"),
        5_000);
  }

  public GroupConfig withInitialRebalanceDelayMs(long ms) {
    return new GroupConfig(
        ms,
        minSessionTimeoutMs,
        maxSessionTimeoutMs,
        maxGroupSize,
        offsetsRetentionMs,
        offsetsRetentionCheckIntervalMs,
        consumerSessionTimeoutMs,
        consumerHeartbeatIntervalMs,
        consumerAssignors,
        commitTimeoutMs);
  }
}
