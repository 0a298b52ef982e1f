package io.kelp.gateway.coordinator.store;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.store.Fence;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.StoredGroup;
import io.kelp.gateway.coordinator.store.GroupLogFormat.CommitRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.DeletionRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.FrameWriter;
import io.kelp.gateway.coordinator.store.GroupLogFormat.GroupIdRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.MetadataRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.Record;
import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One group directory as the store knows it: the group's latest state, and where its next write
 * goes. Fields are guarded by this object's monitor.
 *
 * <p>Objects of a directory belong to generations. Generation {@code g} is {@code snapshot.g} (none
 * for the first generation) followed by {@code log.g.0}, {@code log.g.1}, ...; a new log object of
 * the same generation is started whenever the end of the previous one cannot be trusted.
 */
final class GroupState {
  static final String SNAPSHOT_PREFIX = "snapshot.";
  static final String LOG_PREFIX = "log.";

  /**
   * Put before a group's objects are deleted one by one and removed last, so that a crash in
   * between leaves a directory that is recognisably half deleted rather than a group missing part
   * of its history.
   */
  static final String DELETING_MARKER = "deleting";

  final String directory;

  /** The fence of this store's claim on the directory, taken when it is read. */
  Fence fence;

  /** False until the directory has been read, and again whenever memory may differ from it. */
  boolean loaded;

  /** Set once the group is deleted; a caller holding this object then starts over. */
  boolean removed;

  /** What the last reading of the directory found. */
  GroupDirectoryReader.Outcome found;

  String groupId;
  byte[] metadata;
  final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();

  long generation;
  long sequence;

  /** Bytes in the current log object, and whether its first frame (naming the group) exists. */
  long logSize;

  boolean logStarted;

  /**
   * Appends this store made to the current log object; one continued after reading the directory
   * counts as full, since how many appends it holds is unknown.
   */
  long logAppends;

  /** Log bytes written since the current generation's snapshot, and that snapshot's size. */
  long bytesSinceSnapshot;

  long snapshotSize;

  /**
   * Whether the current log object has appends that readers of the store other than this one may
   * not see yet ({@link io.kelp.engine.store.ObjectStore#publish}), and when the last was made
   * (System.nanoTime()).
   */
  boolean unpublished;

  long lastAppendNanos;

  /** Whether the last try at publishing failed: the next failures are not logged again. */
  boolean publishFailing;

  /** Set when the directory holds a damaged snapshot, so a fresh one is written soon. */
  boolean compactNow;

  GroupState(String directory) {
    this.directory = directory;
  }

  /** Forgets everything read or written, before the directory is read again. */
  void reset() {
    loaded = false;
    found = null;
    groupId = null;
    metadata = null;
    offsets.clear();
    generation = 0;
    sequence = 0;
    logSize = 0;
    logStarted = false;
    logAppends = 0;
    bytesSinceSnapshot = 0;
    snapshotSize = 0;
    compactNow = false;
  }

  String logPath() {
    return directory + "/" + logName(generation, sequence);
  }

  static String logName(long generation, long sequence) {
    return String.format("%s%010d.%06d", LOG_PREFIX, generation, sequence);
  }

  static String snapshotName(long generation) {
    return String.format("%s%010d", SNAPSHOT_PREFIX, generation);
  }

  /**
   * Whether {@code frame} may be applied: a group id it names must be this group's. Checked before
   * applying anything so that a frame is applied whole or not at all.
   */
  boolean accepts(List<Record> frame) {
    for (Record r : frame) {
      if (r instanceof GroupIdRecord id && groupId != null && !groupId.equals(id.groupId())) {
        return false;
      }
    }
    return true;
  }

  void apply(List<Record> frame) {
    for (Record r : frame) {
      if (r instanceof GroupIdRecord id) {
        groupId = id.groupId();
      } else if (r instanceof CommitRecord c) {
        offsets.put(c.partition(), c.offset());
      } else if (r instanceof DeletionRecord d) {
        offsets.remove(d.partition());
      } else if (r instanceof MetadataRecord m) {
        metadata = m.metadata();
      }
    }
  }

  /** The whole state as one frame, for a snapshot. The caller releases the buffer. */
  ByteBuf snapshotFrame() {
    FrameWriter w = new FrameWriter(64 + groupId.length() * 3 + offsets.size() * 64);
    w.groupId(groupId);
    if (metadata != null) {
      w.metadata(metadata);
    }
    return w.commits(offsets).finish();
  }

  /** A copy that stays valid while this state changes. */
  StoredGroup toStoredGroup() {
    return new StoredGroup(
        groupId, metadata == null ? null : metadata.clone(), new HashMap<>(offsets));
  }

  /** Names the group in log lines: its id, shortened if long, and its directory. */
  String describe() {
    if (groupId == null) {
      return "group directory " + directory;
    }
    String id = groupId.length() <= 80 ? groupId : groupId.substring(0, 80) + "...";
    return "group '" + id + "' (" + directory + ")";
  }
}
