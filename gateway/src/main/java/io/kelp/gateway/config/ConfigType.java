package io.kelp.gateway.config;

/** Kafka's config types, with the ids DescribeConfigs v3+ reports them by. */
public enum ConfigType {
  BOOLEAN(1),
  STRING(2),
  INT(3),
  SHORT(4),
  LONG(5),
  DOUBLE(6),
  LIST(7);

  private final byte wireId;

  ConfigType(int wireId) {
    this.wireId = (byte) wireId;
  }

  public byte wireId() {
    return wireId;
  }
}
