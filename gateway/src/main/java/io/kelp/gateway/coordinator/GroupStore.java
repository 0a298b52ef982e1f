package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Where groups and their committed offsets are kept, so that a restart, or a move of the
 * coordinator to another broker, loses nothing. Every write is durable when it returns; callers run
 * it off the network threads and acknowledge the client only afterwards.
 */
public interface GroupStore {

  /**
   * Starts reading the groups back: takes what a coordinator needs to own them (on a store shared
   * by brokers, this fences out the coordinators that read them before) and returns where each
   * group is kept, for {@link #load}.
   */
  List<String> locations() throws IOException;

  /**
   * Reads back the group kept at {@code location} (one of {@link #locations}), or null when nothing
   * there reads back as a group. A failure leaves the group unread: calling this again retries.
   */
  StoredGroup load(String location) throws IOException;

  /**
   * Where the group with this id is kept, as {@link #locations} names it, whether or not it exists.
   */
  String location(String groupId);

  /** Every group in the store, as last written. */
  default List<StoredGroup> loadAll() throws IOException {
    List<StoredGroup> out = new ArrayList<>();
    for (String location : locations()) {
      StoredGroup group = load(location);
      if (group != null) {
        out.add(group);
      }
    }
    return out;
  }

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

  /**
   * Makes the writes of every group left alone for at least {@code idleMs} visible to readers of
   * the store other than this broker, where the store needs that ({@link
   * io.kelp.engine.store.ObjectStore#publish}). Failures are logged and tried again at the next
   * call. Nothing to do by default.
   */
  default void publishIdle(long idleMs) {}

  /** Removes the group with its offsets and state. Missing groups are fine. */
  void deleteGroup(String groupId) throws IOException;
}
