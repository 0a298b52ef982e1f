package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fake group store in memory, for tests of group logic that need a store which can be told to
 * fail. The real store is tested on its own.
 */
public final class MemoryGroupStore implements GroupStore {
  private final Map<String, byte[]> metadata = new LinkedHashMap<>();
  private final Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new LinkedHashMap<>();
  private volatile boolean failing;
  private int writes;
  private int metadataWrites;

  /** Makes every following write fail with an IOException, as a store that is down does. */
  public void failWrites(boolean fail) {
    this.failing = fail;
  }

  public synchronized int writes() {
    return writes;
  }

  public synchronized int metadataWrites() {
    return metadataWrites;
  }

  public synchronized byte[] metadata(String groupId) {
    return metadata.get(groupId);
  }

  @Override
  public synchronized List<StoredGroup> loadAll() {
    List<StoredGroup> out = new ArrayList<>();
    java.util.Set<String> ids = new java.util.LinkedHashSet<>(metadata.keySet());
    ids.addAll(offsets.keySet());
    for (String id : ids) {
      out.add(
          new StoredGroup(
              id, metadata.get(id), new LinkedHashMap<>(offsets.getOrDefault(id, Map.of()))));
    }
    return out;
  }

  @Override
  public synchronized void writeOffsets(
      String groupId,
      Map<TopicPartition, OffsetAndMetadata> commits,
      Collection<TopicPartition> deletions)
      throws IOException {
    check();
    Map<TopicPartition, OffsetAndMetadata> m =
        offsets.computeIfAbsent(groupId, g -> new LinkedHashMap<>());
    m.putAll(commits);
    deletions.forEach(m::remove);
  }

  @Override
  public synchronized void writeMetadata(String groupId, byte[] bytes) throws IOException {
    check();
    metadataWrites++;
    metadata.put(groupId, bytes.clone());
  }

  @Override
  public synchronized void deleteGroup(String groupId) throws IOException {
    check();
    metadata.remove(groupId);
    offsets.remove(groupId);
  }

  private void check() throws IOException {
    writes++;
    if (failing) {
      throw new IOException("store is down (test fault)");
    }
  }
}
