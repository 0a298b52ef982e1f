package io.kelp.gateway.topic;

import io.kelp.engine.catalog.TopicInfo;
import io.kelp.engine.log.PartitionLog;
import io.kelp.gateway.config.TopicConfig;
import java.util.List;
import java.util.UUID;

/**
 * A topic this broker serves: its catalog entry, effective configuration and open partition logs.
 * Immutable; the registry replaces it when the topic changes.
 */
public record LiveTopic(TopicInfo info, TopicConfig config, List<PartitionLog> logs) {

  public String name() {
    return info.name();
  }

  public UUID topicId() {
    return info.topicId();
  }

  public int partitions() {
    return logs.size();
  }

  /** The log of {@code partition}, or null if the topic has no such partition. */
  public PartitionLog log(int partition) {
    return partition >= 0 && partition < logs.size() ? logs.get(partition) : null;
  }
}
