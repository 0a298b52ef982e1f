package io.kelp.gateway.coordinator.store;

import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.kelp.gateway.coordinator.store.GroupLogFormat.Frame;
import io.kelp.gateway.coordinator.store.GroupLogFormat.ScanResult;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a group directory into a {@link GroupState}: the newest snapshot that reads back whole,
 * then every log object of that generation and later ones, in order. A torn or corrupt frame ends
 * the reading of its object (what follows it in the same object cannot be trusted); the next log
 * object, if any, was started after it and is read as usual. The state's write position is set so
 * that nothing is ever appended after bytes that did not read back.
 */
final class GroupDirectoryReader {
  private static final Logger LOG = LoggerFactory.getLogger(GroupDirectoryReader.class);

  enum Outcome {
    /** The state holds the group. */
    LOADED,
    /** No such directory, or an empty one. */
    ABSENT,
    /** Objects exist but none names the group; the write position still accounts for them. */
    NOTHING_VALID,
    /** A deletion was interrupted; the caller finishes it. */
    DELETING
  }

  /** A snapshot or log object, by generation and (for logs) sequence. */
  private record GroupObject(String name, long generation, long sequence, long size) {
    static final Comparator<GroupObject> ORDER =
        Comparator.comparingLong(GroupObject::generation).thenComparingLong(GroupObject::sequence);
  }

  private final ObjectStore store;
  private final GroupState state;

  private GroupDirectoryReader(ObjectStore store, GroupState state) {
    this.store = store;
    this.state = state;
  }

  /** Reads {@code state.directory} into {@code state}, which must be freshly reset. */
  static Outcome read(ObjectStore store, GroupState state) throws IOException {
    return new GroupDirectoryReader(store, state).read();
  }

  private Outcome read() throws IOException {
    List<ObjectInfo> objects = store.list(state.directory);
    List<GroupObject> snapshots = new ArrayList<>();
    List<GroupObject> logs = new ArrayList<>();
    for (ObjectInfo o : objects) {
      if (o.name().equals(GroupState.DELETING_MARKER)) {
        return Outcome.DELETING;
      }
      GroupObject parsed = parse(o);
      if (parsed == null) {
        LOG.warn("Ignoring unknown object {}/{} in a group directory", state.directory, o.name());
      } else if (parsed.sequence() < 0) {
        snapshots.add(parsed);
      } else {
        logs.add(parsed);
      }
    }
    if (snapshots.isEmpty() && logs.isEmpty()) {
      return Outcome.ABSENT;
    }
    long base = readNewestSnapshot(snapshots);
    logs.removeIf(l -> l.generation() < base);
    logs.sort(GroupObject.ORDER);
    long newest = 0;
    for (GroupObject o : snapshots) {
      newest = Math.max(newest, o.generation());
    }
    for (GroupObject o : logs) {
      newest = Math.max(newest, o.generation());
    }
    state.generation = newest;
    for (GroupObject log : logs) {
      readLog(log, log == logs.get(logs.size() - 1) && log.generation() == newest);
    }
    if (state.groupId == null) {
      return Outcome.NOTHING_VALID;
    }
    if (!GroupDirectoryName.of(state.groupId).equals(nameOf(state.directory))) {
      LOG.warn("Ignoring {}: its objects belong to another group directory", state.describe());
      state.groupId = null;
      state.metadata = null;
      state.offsets.clear();
      return Outcome.NOTHING_VALID;
    }
    return Outcome.LOADED;
  }

  /** Applies the newest snapshot that reads back as one whole frame; returns its generation. */
  private long readNewestSnapshot(List<GroupObject> snapshots) throws IOException {
    snapshots.sort(GroupObject.ORDER.reversed());
    for (GroupObject s : snapshots) {
      String path = state.directory + "/" + s.name();
      ByteBuf data = readWhole(path, s.size());
      try {
        ScanResult r = GroupLogFormat.scan(data);
        if (r.problem() == null && r.frames().size() == 1) {
          state.apply(r.frames().get(0).records());
          if (state.groupId != null) {
            state.snapshotSize = r.end();
            return s.generation();
          }
        }
        // Puts are atomic, so this is damage after the fact; an older snapshot may survive it.
        LOG.error(
            "Skipping snapshot {}: {}",
            path,
            r.problem() != null ? r.problem() : "not one frame naming the group");
        state.reset();
        state.compactNow = true;
      } finally {
        data.release();
      }
    }
    return -1;
  }

  /**
   * Applies a log object's frames up to the first bad one. For the last log object this also
   * decides where the next write goes: after its last frame if every byte read back, else at the
   * start of a new object, since objects are never rewritten.
   */
  private void readLog(GroupObject log, boolean last) throws IOException {
    String path = state.directory + "/" + log.name();
    ByteBuf data = readWhole(path, log.size());
    try {
      ScanResult r = GroupLogFormat.scan(data);
      int goodBytes = 0;
      boolean started = false;
      String problem = r.problem();
      for (Frame frame : r.frames()) {
        if (!state.accepts(frame.records())) {
          problem = "a frame naming another group";
          break;
        }
        state.apply(frame.records());
        goodBytes = frame.end();
        started = true;
      }
      if (problem != null) {
        // Only news for the last object: a later one exists because this was seen before.
        if (last) {
          LOG.warn(
              "Ignoring {} bytes at the end of {}, from position {}, for {}: {}",
              data.readableBytes() - goodBytes,
              path,
              goodBytes,
              state.describe(),
              problem);
        } else {
          LOG.info(
              "Ignoring {} bytes at the end of {}, from position {}, for {}: {}; writes went on"
                  + " in a later object",
              data.readableBytes() - goodBytes,
              path,
              goodBytes,
              state.describe(),
              problem);
        }
      }
      if (log.generation() == state.generation) {
        state.bytesSinceSnapshot += data.readableBytes();
      }
      if (last) {
        if (problem == null) {
          state.sequence = log.sequence();
          state.logSize = data.readableBytes();
          state.logStarted = started;
        } else {
          state.sequence = log.sequence() + 1;
        }
      }
    } finally {
      data.release();
    }
  }

  private ByteBuf readWhole(String path, long size) throws IOException {
    if (size > Integer.MAX_VALUE - 16) {
      throw new IOException(path + " is " + size + " bytes, too large for a group object");
    }
    return store.read(path, 0, (int) size);
  }

  private static GroupObject parse(ObjectInfo o) {
    if (o.directory()) {
      return null;
    }
    String name = o.name();
    try {
      if (name.startsWith(GroupState.SNAPSHOT_PREFIX)) {
        long generation = Long.parseLong(name.substring(GroupState.SNAPSHOT_PREFIX.length()));
        return generation >= 0 ? new GroupObject(name, generation, -1, o.size()) : null;
      }
      if (name.startsWith(GroupState.LOG_PREFIX)) {
        String[] parts = name.substring(GroupState.LOG_PREFIX.length()).split("\\.", -1);
        if (parts.length == 2) {
          long generation = Long.parseLong(parts[0]);
          long sequence = Long.parseLong(parts[1]);
          if (generation >= 0 && sequence >= 0) {
            return new GroupObject(name, generation, sequence, o.size());
          }
        }
      }
    } catch (NumberFormatException e) {
      // not one of ours
    }
    return null;
  }

  /** Generation of an object name, or -1 if the name is not a snapshot or log object. */
  static long generationOf(ObjectInfo o) {
    GroupObject parsed = parse(o);
    return parsed == null ? -1 : parsed.generation();
  }

  private static String nameOf(String directory) {
    return directory.substring(directory.lastIndexOf('/') + 1);
  }
}
