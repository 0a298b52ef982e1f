package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A group store that counts, per group id, the writes under way ({@link GroupCoordinator#writing});
 * reads and publishing go straight through.
 */
final class WriteCountingStore implements GroupStore {
  private final GroupStore store;
  private final Map<String, Integer> writing;

  WriteCountingStore(GroupStore store, Map<String, Integer> writing) {
    this.store = store;
    this.writing = writing;
  }

  /** A write of one group, which may throw what the store throws. */
  private interface Write {
    void run() throws IOException;
  }

  private void counted(String groupId, Write write) throws IOException {
    writing.merge(groupId, 1, Integer::sum);
    try {
      write.run();
    } finally {
      writing.computeIfPresent(groupId, (id, n) -> n == 1 ? null : n - 1);
    }
  }

  @Override
  public void writeOffsets(
      String groupId,
      Map<TopicPartition, OffsetAndMetadata> commits,
      Collection<TopicPartition> deletions)
      throws IOException {
    counted(groupId, () -> store.writeOffsets(groupId, commits, deletions));
  }

  @Override
  public void writeMetadata(String groupId, byte[] metadata) throws IOException {
    counted(groupId, () -> store.writeMetadata(groupId, metadata));
  }

  @Override
  public void deleteGroup(String groupId) throws IOException {
    counted(groupId, () -> store.deleteGroup(groupId));
  }

  @Override
  public List<String> locations() throws IOException {
    return store.locations();
  }

  @Override
  public StoredGroup load(String location) throws IOException {
    return store.load(location);
  }

  @Override
  public String location(String groupId) {
    return store.location(groupId);
  }

  @Override
  public List<StoredGroup> loadAll() throws IOException {
    return store.loadAll();
  }

  @Override
  public void publishIdle(long idleMs) {
    store.publishIdle(idleMs);
  }
}
