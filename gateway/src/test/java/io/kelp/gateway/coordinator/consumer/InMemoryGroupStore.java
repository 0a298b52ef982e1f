package io.kelp.gateway.coordinator.consumer;

import io.kelp.engine.TopicPartition;
import io.kelp.gateway.coordinator.GroupStore;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.StoredGroup;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A group store in memory, standing in for the real one in tests; it counts metadata writes. */
final class InMemoryGroupStore implements GroupStore {
  private final Map<String, byte[]> metadata = new TreeMap<>();
  private final Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new TreeMap<>();
  int metadataWrites;

  @Override
  public synchronized List<StoredGroup> loadAll() {
    List<StoredGroup> out = new ArrayList<>();
    for (String id : metadata.keySet()) {
      out.add(new StoredGroup(id, metadata.get(id), offsets.getOrDefault(id, Map.of())));
    }
    return out;
  }

  @Override
  public synchronized void writeOffsets(
      String groupId,
      Map<TopicPartition, OffsetAndMetadata> commits,
      Collection<TopicPartition> deletions) {
    Map<TopicPartition, OffsetAndMetadata> m =
        offsets.computeIfAbsent(groupId, k -> new HashMap<>());
    m.putAll(commits);
    deletions.forEach(m::remove);
  }

  @Override
  public synchronized void writeMetadata(String groupId, byte[] bytes) {
    metadata.put(groupId, bytes.clone());
    metadataWrites++;
  }

  @Override
  public synchronized void deleteGroup(String groupId) {
    metadata.remove(groupId);
    offsets.remove(groupId);
  }

  synchronized byte[] metadata(String groupId) {
    return metadata.get(groupId);
  }
}
