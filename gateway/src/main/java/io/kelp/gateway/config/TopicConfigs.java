package io.kelp.gateway.config;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The Kafka topic configs Kelp understands, with Kafka 4's types, defaults and ranges. A key not
 * listed here is rejected with INVALID_CONFIG, as Kafka rejects unknown topic configs. Keys marked
 * acted-on change what Kelp does; the others are validated, stored and echoed so that tools that
 * set them keep working.
 */
public final class TopicConfigs {
  private TopicConfigs() {}

  public static final String CLEANUP_POLICY = "cleanup.policy";
  public static final String RETENTION_MS = "retention.ms";
  public static final String RETENTION_BYTES = "retention.bytes";
  public static final String SEGMENT_BYTES = "segment.bytes";
  public static final String SEGMENT_MS = "segment.ms";
  public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
  public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
  public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
  public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
  public static final String MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS =
      "message.timestamp.difference.max.ms";
  public static final String DELETE_RETENTION_MS = "delete.retention.ms";
  public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
  public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
  public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
  public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
  public static final String REMOTE_STORAGE_ENABLE = "remote.storage.enable";
  public static final String FOLLOWER_THROTTLED = "follower.replication.throttled.replicas";
  public static final String LEADER_THROTTLED = "leader.replication.throttled.replicas";

  private static final String MAX_LONG = Long.toString(Long.MAX_VALUE);
  private static final Map<String, ConfigKey> KEYS = new TreeMap<>();

  static {
    acted(
        CLEANUP_POLICY,
        ConfigType.LIST,
        "delete",
        null,
        null,
        List.of("compact", "delete"),
        "Retention policy of old segments: delete, compact, or both.",
        "log.cleanup.policy");
    acted(
        RETENTION_MS,
        ConfigType.LONG,
        "604800000",
        -1L,
        null,
        List.of(),
        "How long records are kept before old segments are deleted; -1 keeps them forever.",
        "log.retention.ms");
    acted(
        RETENTION_BYTES,
        ConfigType.LONG,
        "-1",
        null,
        null,
        List.of(),
        "Largest size a partition may grow to before old segments are deleted; -1 for no limit.",
        "log.retention.bytes");
    acted(
        SEGMENT_BYTES,
        ConfigType.INT,
        "1073741824",
        1048576L,
        null,
        List.of(),
        "Size at which the active segment is rolled.",
        "log.segment.bytes");
    acted(
        SEGMENT_MS,
        ConfigType.LONG,
        "604800000",
        1L,
        null,
        List.of(),
        "Age at which the active segment is rolled, so that retention can remove it.",
        "log.roll.ms");
    acted(
        MAX_MESSAGE_BYTES,
        ConfigType.INT,
        "1048588",
        0L,
        null,
        List.of(),
        "Largest record batch size accepted.",
        "message.max.bytes");
    acted(
        MESSAGE_TIMESTAMP_TYPE,
        ConfigType.STRING,
        "CreateTime",
        null,
        null,
        List.of("CreateTime", "LogAppendTime"),
        "Whether record timestamps are the producer's (CreateTime) or the broker's append time.",
        "log.message.timestamp.type");
    acted(
        MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
        ConfigType.LONG,
        MAX_LONG,
        0L,
        null,
        List.of(),
        "How far in the past a CreateTime timestamp may be before the batch is rejected.",
        "log.message.timestamp.before.max.ms");
    acted(
        MESSAGE_TIMESTAMP_AFTER_MAX_MS,
        ConfigType.LONG,
        "3600000",
        0L,
        null,
        List.of(),
        "How far in the future a CreateTime timestamp may be before the batch is rejected.",
        "log.message.timestamp.after.max.ms");
    stored(
        MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS,
        ConfigType.LONG,
        MAX_LONG,
        0L,
        null,
        List.of(),
        "Deprecated in Kafka; superseded by message.timestamp.before/after.max.ms.",
        "log.message.timestamp.difference.max.ms");
    acted(
        DELETE_RETENTION_MS,
        ConfigType.LONG,
        "86400000",
        0L,
        null,
        List.of(),
        "How long compaction keeps tombstones.",
        "log.cleaner.delete.retention.ms");
    acted(
        MIN_COMPACTION_LAG_MS,
        ConfigType.LONG,
        "0",
        0L,
        null,
        List.of(),
        "Records younger than this are not compacted.",
        "log.cleaner.min.compaction.lag.ms");
    stored(
        MAX_COMPACTION_LAG_MS,
        ConfigType.LONG,
        MAX_LONG,
        1L,
        null,
        List.of(),
        "Longest time a record may stay uncompacted.",
        "log.cleaner.max.compaction.lag.ms");
    acted(
        MIN_CLEANABLE_DIRTY_RATIO,
        ConfigType.DOUBLE,
        "0.5",
        0L,
        1L,
        List.of(),
        "Share of the log not yet compacted that triggers compaction.",
        "log.cleaner.min.cleanable.ratio");
    stored(
        "compression.type",
        ConfigType.STRING,
        "producer",
        null,
        null,
        List.of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
        "Kelp keeps batches as the producer compressed them.",
        "compression.type");
    stored(
        "compression.gzip.level",
        ConfigType.INT,
        "-1",
        -1L,
        9L,
        List.of(),
        "gzip level when the broker compresses; Kelp never recompresses.",
        "compression.gzip.level");
    stored(
        "compression.lz4.level",
        ConfigType.INT,
        "9",
        1L,
        17L,
        List.of(),
        "lz4 level when the broker compresses; Kelp never recompresses.",
        "compression.lz4.level");
    stored(
        "compression.zstd.level",
        ConfigType.INT,
        "3",
        -131072L,
        22L,
        List.of(),
        "zstd level when the broker compresses; Kelp never recompresses.",
        "compression.zstd.level");
    stored(
        "min.insync.replicas",
        ConfigType.INT,
        "1",
        1L,
        null,
        List.of(),
        "Kelp keeps one copy in the store, so acks=all waits for the store write.",
        "min.insync.replicas");
    stored(
        "unclean.leader.election.enable",
        ConfigType.BOOLEAN,
        "false",
        null,
        null,
        List.of(),
        "No effect: a partition's data lives in the store, not on a replica.",
        "unclean.leader.election.enable");
    acted(
        INDEX_INTERVAL_BYTES,
        ConfigType.INT,
        "4096",
        0L,
        null,
        List.of(),
        "Bytes between entries of the sparse offset index.",
        "log.index.interval.bytes");
    stored(
        "segment.index.bytes",
        ConfigType.INT,
        "10485760",
        4L,
        null,
        List.of(),
        "No effect: Kelp sizes its indexes to the segment.",
        "log.index.size.max.bytes");
    stored(
        "segment.jitter.ms",
        ConfigType.LONG,
        "0",
        0L,
        null,
        List.of(),
        "Stored only.",
        "log.roll.jitter.ms");
    stored(
        "flush.messages",
        ConfigType.LONG,
        MAX_LONG,
        1L,
        null,
        List.of(),
        "No effect: Kelp flushes continuously and acks=all waits for the store.",
        "log.flush.interval.messages");
    stored(
        "flush.ms",
        ConfigType.LONG,
        MAX_LONG,
        0L,
        null,
        List.of(),
        "No effect: Kelp flushes continuously and acks=all waits for the store.",
        "log.flush.interval.ms");
    stored(
        "file.delete.delay.ms",
        ConfigType.LONG,
        "60000",
        0L,
        null,
        List.of(),
        "Stored only.",
        "log.segment.delete.delay.ms");
    stored(
        "preallocate",
        ConfigType.BOOLEAN,
        "false",
        null,
        null,
        List.of(),
        "Stored only.",
        "log.preallocate");
    stored(
        "message.downconversion.enable",
        ConfigType.BOOLEAN,
        "true",
        null,
        null,
        List.of(),
        "No effect: only record batch v2 exists.",
        "log.message.downconversion.enable");
    stored(
        "local.retention.ms",
        ConfigType.LONG,
        "-2",
        -2L,
        null,
        List.of(),
        "Tiered storage is not available; stored only.",
        "log.local.retention.ms");
    stored(
        "local.retention.bytes",
        ConfigType.LONG,
        "-2",
        -2L,
        null,
        List.of(),
        "Tiered storage is not available; stored only.",
        "log.local.retention.bytes");
    stored(
        REMOTE_STORAGE_ENABLE,
        ConfigType.BOOLEAN,
        "false",
        null,
        null,
        List.of(),
        "Tiered storage is not available, so only false is accepted.",
        null);
    stored(
        FOLLOWER_THROTTLED,
        ConfigType.LIST,
        "",
        null,
        null,
        List.of(),
        "No effect: there is no replication.",
        null);
    stored(
        LEADER_THROTTLED,
        ConfigType.LIST,
        "",
        null,
        null,
        List.of(),
        "No effect: there is no replication.",
        null);
  }

  private static void acted(
      String name,
      ConfigType type,
      String def,
      Long min,
      Long max,
      List<String> valid,
      String doc,
      String synonym) {
    add(name, type, def, min, max, valid, doc, true, synonym);
  }

  private static void stored(
      String name,
      ConfigType type,
      String def,
      Long min,
      Long max,
      List<String> valid,
      String doc,
      String synonym) {
    add(name, type, def, min, max, valid, doc, false, synonym);
  }

  private static void add(
      String name,
      ConfigType type,
      String def,
      Long min,
      Long max,
      List<String> valid,
      String doc,
      boolean acted,
      String synonym) {
    Double lo = min == null ? null : min.doubleValue();
    Double hi = max == null ? null : max.doubleValue();
    KEYS.put(name, new ConfigKey(name, type, def, lo, hi, valid, doc, acted, synonym));
  }

  /** Every key, sorted by name. */
  public static Collection<ConfigKey> all() {
    return Collections.unmodifiableCollection(KEYS.values());
  }

  public static Optional<ConfigKey> key(String name) {
    return Optional.ofNullable(KEYS.get(name));
  }

  /**
   * Checks a complete set of explicitly set configs and returns it normalised (numbers without
   * spaces, booleans lower case).
   *
   * @throws InvalidConfigException naming the first unknown key or bad value
   */
  public static Map<String, String> validate(Map<String, String> configs)
      throws InvalidConfigException {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : configs.entrySet()) {
      ConfigKey key = KEYS.get(e.getKey());
      if (key == null) {
        throw new InvalidConfigException("Unknown topic config name: " + e.getKey());
      }
      out.put(e.getKey(), key.validate(e.getValue()));
    }
    TopicConfig effective = TopicConfig.of(out);
    long minLag = effective.longValue(MIN_COMPACTION_LAG_MS);
    long maxLag = effective.longValue(MAX_COMPACTION_LAG_MS);
    if (minLag > maxLag) {
      throw new InvalidConfigException(
          "conflict topic config setting "
              + MIN_COMPACTION_LAG_MS
              + " ("
              + minLag
              + ") > "
              + MAX_COMPACTION_LAG_MS
              + " ("
              + maxLag
              + ")");
    }
    if (Boolean.parseBoolean(out.get(REMOTE_STORAGE_ENABLE))) {
      throw new InvalidConfigException(
          "Invalid value true for configuration "
              + REMOTE_STORAGE_ENABLE
              + ": tiered storage is not available in Kelp");
    }
    for (String throttled : List.of(FOLLOWER_THROTTLED, LEADER_THROTTLED)) {
      String v = out.get(throttled);
      if (v != null && !v.equals("*") && !v.matches("(\\d+:\\d+)?(,\\d+:\\d+)*")) {
        throw new InvalidConfigException(
            "Invalid value "
                + v
                + " for configuration "
                + throttled
                + ": must be '*' or a list of [PartitionId]:[BrokerId]");
      }
    }
    return out;
  }
}
