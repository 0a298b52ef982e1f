package io.kelp.gateway.config;

import io.kelp.engine.log.LogConfig;
import java.util.List;
import java.util.Map;

/**
 * A topic's effective configuration: its explicitly set configs over Kafka's defaults, with the
 * values the broker acts on already parsed.
 *
 * @param explicit the configs set on the topic (already validated)
 * @param maxMessageBytes max.message.bytes
 * @param logAppendTime whether message.timestamp.type is LogAppendTime
 * @param timestampBeforeMaxMs message.timestamp.before.max.ms
 * @param timestampAfterMaxMs message.timestamp.after.max.ms
 * @param compact whether cleanup.policy includes compact (records then need keys)
 * @param logConfig what the partition logs act on
 */
public record TopicConfig(
    Map<String, String> explicit,
    int maxMessageBytes,
    boolean logAppendTime,
    long timestampBeforeMaxMs,
    long timestampAfterMaxMs,
    boolean compact,
    LogConfig logConfig) {

  /** The effective configuration of validated explicit configs. */
  public static TopicConfig of(Map<String, String> explicit) {
    Map<String, String> set = Map.copyOf(explicit);
    List<String> policy = ConfigKey.splitList(value(set, TopicConfigs.CLEANUP_POLICY));
    boolean compact = policy.contains("compact");
    boolean logAppendTime = value(set, TopicConfigs.MESSAGE_TIMESTAMP_TYPE).equals("LogAppendTime");
    LogConfig log =
        new LogConfig(
            longOf(set, TopicConfigs.SEGMENT_BYTES),
            longOf(set, TopicConfigs.SEGMENT_MS),
            longOf(set, TopicConfigs.RETENTION_MS),
            longOf(set, TopicConfigs.RETENTION_BYTES),
            policy.contains("delete"),
            compact,
            longOf(set, TopicConfigs.DELETE_RETENTION_MS),
            longOf(set, TopicConfigs.MIN_COMPACTION_LAG_MS),
            Double.parseDouble(value(set, TopicConfigs.MIN_CLEANABLE_DIRTY_RATIO)),
            logAppendTime,
            (int) longOf(set, TopicConfigs.INDEX_INTERVAL_BYTES));
    return new TopicConfig(
        set,
        (int) longOf(set, TopicConfigs.MAX_MESSAGE_BYTES),
        logAppendTime,
        longOf(set, TopicConfigs.MESSAGE_TIMESTAMP_BEFORE_MAX_MS),
        longOf(set, TopicConfigs.MESSAGE_TIMESTAMP_AFTER_MAX_MS),
        compact,
        log);
  }

  /** The value in effect: the explicit one, else Kafka's default. */
  public String value(String name) {
    return value(explicit, name);
  }

  /** Whether the topic sets {@code name} explicitly. */
  public boolean isSet(String name) {
    return explicit.containsKey(name);
  }

  long longValue(String name) {
    return longOf(explicit, name);
  }

  private static String value(Map<String, String> set, String name) {
    String v = set.get(name);
    if (v != null) {
      return v;
    }
    return TopicConfigs.key(name)
        .orElseThrow(() -> new IllegalArgumentException("no topic config " + name))
        .defaultValue();
  }

  private static long longOf(Map<String, String> set, String name) {
    return Long.parseLong(value(set, name).trim());
  }
}
