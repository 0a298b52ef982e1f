package io.kelp.engine.log;

/**
 * The per-topic settings the log acts on, already validated and converted from Kafka topic configs
 * by the gateway.
 *
 * @param segmentBytes roll the active segment past this size (segment.bytes)
 * @param segmentMs roll the active segment after this age (segment.ms)
 * @param retentionMs delete segments whose newest record is older; -1 keeps forever
 * @param retentionBytes delete the oldest segments while the log is larger; -1 for no limit
 * @param delete whether cleanup.policy includes delete
 * @param compact whether cleanup.policy includes compact
 * @param deleteRetentionMs how long compaction keeps tombstones (delete.retention.ms)
 * @param minCompactionLagMs records younger than this are not compacted
 * @param minCleanableDirtyRatio compact when this share of the log is not yet compacted
 * @param logAppendTime whether message.timestamp.type is LogAppendTime
 * @param indexIntervalBytes bytes between sparse index entries (index.interval.bytes)
 */
public record LogConfig(
    long segmentBytes,
    long segmentMs,
    long retentionMs,
    long retentionBytes,
    boolean delete,
    boolean compact,
    long deleteRetentionMs,
    long minCompactionLagMs,
    double minCleanableDirtyRatio,
    boolean logAppendTime,
    int indexIntervalBytes) {

  /** Kafka's defaults. */
  public static LogConfig defaults() {
    return new LogConfig(
        1024L * 1024 * 1024,
        7L * 24 * 3600 * 1000,
        7L * 24 * 3600 * 1000,
        -1L,
        true,
        false,
        24L * 3600 * 1000,
        0L,
        0.5,
        false,
        4096);
  }
}
