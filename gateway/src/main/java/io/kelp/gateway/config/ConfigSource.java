package io.kelp.gateway.config;

/** Where a config value comes from, with the ids DescribeConfigs and CreateTopics report. */
public final class ConfigSource {
  private ConfigSource() {}

  public static final byte DYNAMIC_TOPIC_CONFIG = 1;
  public static final byte STATIC_BROKER_CONFIG = 4;
  public static final byte DEFAULT_CONFIG = 5;
}
