package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Where groups and their committed offsets are kept, so that a restart, or a move of the
 * coordinator to another broker, loses nothing. Every write is durable when it returns; callers run
 * it off the network threads and acknowledge the client only afterwards.
 */
public interface GroupStore {

  /** Every group in the store, as last written. */
  List<StoredGroup> loadAll() throws IOException;

  /**
   * Records offset commits and offset deletions of one group, atomically: after a crash either all
   * of them are read back or none.
   */
  void writeOffsets(
      String groupId,
      Map<TopicPartition, OffsetAndMetadata> commits,
      Collection<TopicPartition> deletions)
      throws IOException;

  /** Records the group's membership state: opaque bytes the group's coordinator reads back. */
  void writeMetadata(String groupId, byte[] metadata) throws IOException;

  /** Removes the group with its offsets and state. Missing groups are fine. */
  void deleteGroup(String groupId) throws IOException;
}
