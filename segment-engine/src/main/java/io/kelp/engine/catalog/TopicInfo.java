package io.kelp.engine.catalog;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A topic as the catalog records it.
 *
 * @param partitionDirs for each partition, its directory relative to the topic directory: the
 *     version directory and the ring range, e.g. {@code v2026-11-29-22-00-00/0000-1260}
 * @param configs the topic configs set explicitly (defaults are not stored)
 */
public record TopicInfo(
    String name,
    UUID topicId,
    List<String> partitionDirs,
    Map<String, String> configs,
    long createdMs) {

  public int partitions() {
    return partitionDirs.size();
  }
}
