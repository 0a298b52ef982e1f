package io.kelp.gateway.api.describeconfigs;

import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.config.ConfigKey;
import io.kelp.gateway.config.ConfigSource;
import io.kelp.gateway.config.ConfigType;
import io.kelp.gateway.config.TopicConfigs;
import io.kelp.gateway.server.BrokerConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The configs a broker resource shows, under Kafka's broker config names: this broker's settings
 * (static, from its command line, environment or config file) and the broker-wide defaults of every
 * topic config. All are read-only: Kelp has no dynamic broker configs.
 */
final class BrokerConfigEntries {
  private BrokerConfigEntries() {}

  record Entry(String name, String value, ConfigType type, byte source, String documentation) {}

  static List<Entry> of(BrokerServices b) {
    BrokerConfig c = b.config();
    String listener = "PLAINTEXT://" + b.advertised();
    List<Entry> out = new ArrayList<>();
    out.add(
        fixed("broker.id", Integer.toString(b.brokerId()), ConfigType.INT, "This broker's id."));
    out.add(fixed("node.id", Integer.toString(b.brokerId()), ConfigType.INT, "This broker's id."));
    out.add(
        fixed("listeners", "PLAINTEXT://" + c.listen(), ConfigType.LIST, "Where Kelp listens."));
    out.add(fixed("advertised.listeners", listener, ConfigType.LIST, "Address given to clients."));
    out.add(fixed("log.dirs", b.dataDir().toString(), ConfigType.LIST, "The local store."));
    out.add(
        fixed(
            "auto.create.topics.enable",
            Boolean.toString(c.autoCreateTopics()),
            ConfigType.BOOLEAN,
            "Whether Metadata requests create unknown topics."));
    out.add(
        fixed(
            "num.partitions",
            Integer.toString(c.defaultPartitions()),
            ConfigType.INT,
            "Partitions of auto-created topics."));
    out.add(
        fixed(
            "default.replication.factor",
            "1",
            ConfigType.INT,
            "The store keeps the data; each partition has one broker."));
    out.add(
        fixed(
            "socket.request.max.bytes",
            Integer.toString(c.socketRequestMaxBytes()),
            ConfigType.INT,
            "Largest request accepted."));
    for (ConfigKey key : TopicConfigs.all()) {
      if (key.brokerSynonym() != null) {
        out.add(
            new Entry(
                key.brokerSynonym(),
                key.defaultValue(),
                key.type(),
                ConfigSource.DEFAULT_CONFIG,
                "Default of topic config " + key.name() + ". " + key.documentation()));
      }
    }
    return out;
  }

  private static Entry fixed(String name, String value, ConfigType type, String doc) {
    return new Entry(name, value, type, ConfigSource.STATIC_BROKER_CONFIG, doc);
  }
}
