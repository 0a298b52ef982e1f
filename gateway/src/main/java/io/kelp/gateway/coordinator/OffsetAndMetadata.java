package io.kelp.gateway.coordinator;

/**
 * A committed offset as Kafka keeps it: the next offset to consume, the leader epoch of the record
 * before it (-1 when the client did not say), the client's metadata string, when it was committed,
 * and when it expires (-1: by offsets.retention.minutes once the group is empty).
 */
public record OffsetAndMetadata(
    long offset, int leaderEpoch, String metadata, long commitTimestampMs, long expireTimestampMs) {
  public static final int NO_LEADER_EPOCH = -1;
  public static final long NO_EXPIRY = -1;
}
