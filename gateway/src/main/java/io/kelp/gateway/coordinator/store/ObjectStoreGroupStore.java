package io.kelp.gateway.coordinator.store;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.store.EpochCounter;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.kelp.gateway.coordinator.GroupStore;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.StoredGroup;
import io.kelp.gateway.coordinator.store.GroupLogFormat.FrameWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups and their committed offsets in the {@link ObjectStore}, one directory per group under
 * {@value #ROOT} (named by {@link GroupDirectoryName}):
 *
 * <pre>
 * /kelp/groups/orders-app/
 *   snapshot.0000000003        the whole state after generation 2 (put, atomic)
 *   log.0000000003.000000      writes since, one frame per call (appended)
 *   log.0000000003.000001      started because log .000000 ended in a torn frame
 * </pre>
 *
 * <p>Each {@link #writeOffsets} and {@link #writeMetadata} call is one append of one frame ({@link
 * GroupLogFormat}), so a batch of commits is read back whole or not at all. A log object takes at
 * most the store's {@link ObjectStore#maxAppendsPerObject} appends; writes then go on in the
 * generation's next log object. A crash in the middle of an append leaves a torn frame at the end
 * of a log object; it is ignored when the group is read, and, since objects are never rewritten,
 * later writes go to a new log object of the same generation.
 *
 * <p>When a generation's logs pass a size ({@code compactionBytes}, or the size of the last
 * snapshot if that is larger, so a large group is not rewritten on every few commits) the group's
 * whole state is put as the snapshot of the next generation, writes move to that generation's logs,
 * and older generations are deleted. Objects therefore stay bounded by the size of the state plus
 * the threshold, whatever the number of commits. A crash anywhere in this leaves either the old
 * generation whole or the new snapshot whole; reading picks the newest snapshot that reads back and
 * the logs from its generation on.
 *
 * <p><b>Fencing.</b> Every write is fenced ({@link ObjectStore#claim}): {@link #locations} takes
 * the next coordinator epoch, recorded under {@value #EPOCHS}, and each group directory is claimed
 * with it before it is read, so once a store has loaded a group, a store that loaded it before
 * (another broker, or this one before a restart that left the old process running) can write
 * nothing more to it: its writes fail with {@link FencedException}, which the coordinator answers
 * as NOT_COORDINATOR. Fenced appends also take the store's cheaper path: on SeaweedFS a commit is
 * one upload to a file id reserved ahead instead of one filer transaction each.
 *
 * <p>The store keeps the latest state of every group it wrote or read, to write snapshots without
 * reading the logs back. That cache is right only while this broker is the groups' one writer;
 * {@link #locations} marks every group for reading from the store again, so loading the groups when
 * the broker becomes their coordinator picks up what another broker wrote before.
 *
 * <p>Thread safety: calls for different groups run in parallel; calls for one group are serialized
 * on that group's entry.
 */
public final class ObjectStoreGroupStore implements GroupStore {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectStoreGroupStore.class);

  public static final String ROOT = "/kelp/groups";

  /**
   * The directory whose owner epoch is the groups' coordinator epoch, outside {@link #ROOT} so that
   * listing the groups does not meet it.
   */
  public static final String EPOCHS = "/kelp/group-coordinator";

  /** Epochs taken by other stores in a row before {@link #takeEpoch} gives up. */
  private static final int MAX_LOST_RACES = 100;

  /** Log bytes per generation before a snapshot is written. */
  public static final long DEFAULT_COMPACTION_BYTES = 1 << 20;

  private final ObjectStore store;
  private final long compactionBytes;
  private final Map<String, GroupState> groups = new ConcurrentHashMap<>();

  /** The epoch this store claims group directories with; 0 until taken. Guarded by this. */
  private long epoch;

  public ObjectStoreGroupStore(ObjectStore store) {
    this(store, DEFAULT_COMPACTION_BYTES);
  }

  /**
   * @param compactionBytes log bytes a generation may reach before the group's state is written as
   *     a snapshot
   */
  public ObjectStoreGroupStore(ObjectStore store, long compactionBytes) {
    if (compactionBytes < 1) {
      throw new IllegalArgumentException("compactionBytes must be positive: " + compactionBytes);
    }
    this.store = Objects.requireNonNull(store, "store");
    this.compactionBytes = compactionBytes;
  }

  /** Work done on one group's entry while holding its monitor. */
  @FunctionalInterface
  private interface GroupAction<T> {
    T run(GroupState group) throws IOException;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Takes the next coordinator epoch, with which {@link #load} claims a group directory before
   * reading it: from then on a store that loaded the group before can write nothing more to it. The
   * locations are the names of the group directories.
   */
  @Override
  public List<String> locations() throws IOException {
    takeEpoch();
    for (GroupState g : groups.values()) {
      synchronized (g) {
        g.loaded = false;
      }
    }
    List<String> out = new ArrayList<>();
    for (ObjectInfo dir : store.list(ROOT)) {
      if (!dir.directory()) {
        LOG.warn("Ignoring {}/{}: not a group directory", ROOT, dir.name());
        continue;
      }
      out.add(dir.name());
    }
    return out;
  }

  @Override
  public StoredGroup load(String location) throws IOException {
    return withGroup(
        location,
        null,
        g -> {
          if (g.groupId != null) {
            return g.toStoredGroup();
          }
          if (g.found == GroupDirectoryReader.Outcome.NOTHING_VALID) {
            LOG.warn("Skipping {}: nothing in it reads back as a group", g.directory);
          } else if (g.found == GroupDirectoryReader.Outcome.ABSENT) {
            LOG.info("Skipping {}: no group objects in it", g.directory);
          }
          return null;
        });
  }

  @Override
  public String location(String groupId) {
    return GroupDirectoryName.of(groupId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Commits are applied before deletions, so a partition in both ends up deleted.
   */
  @Override
  public void writeOffsets(
      String groupId,
      Map<TopicPartition, OffsetAndMetadata> commits,
      Collection<TopicPartition> deletions)
      throws IOException {
    Objects.requireNonNull(commits, "commits");
    Objects.requireNonNull(deletions, "deletions");
    if (commits.isEmpty() && deletions.isEmpty()) {
      return;
    }
    withGroup(
        GroupDirectoryName.of(groupId),
        groupId,
        g -> {
          append(
              g,
              groupId,
              commits.size() * 64 + deletions.size() * 32,
              w -> w.commits(commits).deletions(deletions));
          // Same order as the frame's records, so memory matches what a reader will apply.
          g.offsets.putAll(commits);
          for (TopicPartition tp : deletions) {
            g.offsets.remove(tp);
          }
          maybeCompact(g);
          return null;
        });
  }

  /** {@inheritDoc} A null {@code metadata} clears the state. */
  @Override
  public void writeMetadata(String groupId, byte[] metadata) throws IOException {
    byte[] copy = metadata == null ? null : metadata.clone();
    withGroup(
        GroupDirectoryName.of(groupId),
        groupId,
        g -> {
          append(g, groupId, copy == null ? 0 : copy.length, w -> w.metadata(copy));
          g.metadata = copy;
          maybeCompact(g);
          return null;
        });
  }

  @Override
  public void deleteGroup(String groupId) throws IOException {
    String name = GroupDirectoryName.of(groupId);
    while (true) {
      GroupState g = groups.computeIfAbsent(name, n -> new GroupState(ROOT + "/" + n));
      synchronized (g) {
        if (g.removed) {
          continue;
        }
        checkSameGroup(g, groupId);
        // If the deletion fails half way, the next call reads the directory again.
        g.loaded = false;
        // The store has no fenced delete: check first that no later coordinator has the group.
        g.fence = claim(g.directory);
        deleteDirectory(g);
        g.removed = true;
        groups.remove(name, g);
        return;
      }
    }
  }

  @Override
  public void publishIdle(long idleMs) {
    long idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMs);
    for (GroupState g : groups.values()) {
      synchronized (g) {
        if (!g.unpublished
            || !g.loaded
            || g.removed
            || g.fence == null
            || System.nanoTime() - g.lastAppendNanos < idleNanos) {
          continue;
        }
        try {
          store.publish(g.logPath(), g.fence);
          g.unpublished = false;
          if (g.publishFailing) {
            LOG.info("Publishing the latest writes of {} works again", g.describe());
            g.publishFailing = false;
          }
        } catch (FencedException e) {
          g.unpublished = false; // the group is another coordinator's now
          LOG.warn("Not publishing {}: {}", g.describe(), e.getMessage());
        } catch (IOException | RuntimeException e) {
          // Tried every half second while it fails: said once, not on every try.
          if (!g.publishFailing) {
            LOG.warn(
                "Publishing the latest writes of {} failed; tried again until it works: {}",
                g.describe(),
                e.toString());
            g.publishFailing = true;
          }
        }
      }
    }
  }

  /**
   * Runs {@code action} on the entry for directory {@code name}, read from the store first if need
   * be. {@code groupId}, if given, must be the group the directory holds.
   */
  private <T> T withGroup(String name, String groupId, GroupAction<T> action) throws IOException {
    while (true) {
      GroupState g = groups.computeIfAbsent(name, n -> new GroupState(ROOT + "/" + n));
      synchronized (g) {
        if (g.removed) {
          continue; // deleted while we waited; a fresh entry stands for the directory now
        }
        if (!g.loaded) {
          load(g);
        }
        checkSameGroup(g, groupId);
        return action.run(g);
      }
    }
  }

  private void load(GroupState g) throws IOException {
    g.reset();
    // Claimed before reading, so that what an earlier owner acknowledged is all there to read.
    g.fence = claim(g.directory);
    GroupDirectoryReader.Outcome outcome = GroupDirectoryReader.read(store, g);
    if (outcome == GroupDirectoryReader.Outcome.DELETING) {
      LOG.info("Finishing the deletion of {}, interrupted earlier", g.directory);
      deleteDirectory(g);
      g.reset();
      g.fence = null; // the claim went with the directory: the next write claims it again
    }
    long bound = store.maxAppendsPerObject();
    if (g.logStarted && bound != Long.MAX_VALUE) {
      g.logAppends = bound; // see GroupState.logAppends
    }
    g.found = outcome;
    g.loaded = true;
  }

  /** Takes the next coordinator epoch: above every epoch any store took before. */
  private synchronized long takeEpoch() throws IOException {
    long last = Math.max(store.claim(EPOCHS, Long.MIN_VALUE), 0);
    epoch = EpochCounter.takeNext(store, EPOCHS, last + 1, MAX_LOST_RACES);
    return epoch;
  }

  /** This store's epoch, taken now if {@link #locations} has not run yet. */
  private synchronized long epoch() throws IOException {
    return epoch != 0 ? epoch : takeEpoch();
  }

  /**
   * Claims a group directory with this store's epoch, then checks that no store has taken a later
   * epoch meanwhile: one that did lists the groups after taking it, so either it finds this
   * directory and claims it too, or this check sees its epoch.
   *
   * @throws FencedException if a store with a later epoch has claimed the directory, or has taken a
   *     later epoch
   */
  private Fence claim(String directory) throws IOException {
    long mine = epoch();
    long recorded = store.claim(directory, mine);
    if (recorded == mine) {
      recorded = store.claim(EPOCHS, Long.MIN_VALUE);
    }
    if (recorded != mine) {
      throw new FencedException(
          directory
              + ": a group coordinator with epoch "
              + recorded
              + " has started since this one's ("
              + mine
              + "); another broker has taken its groups over");
    }
    return new Fence(directory, mine);
  }

  /** The fence for writing to {@code g}'s directory, claimed again if it was deleted. */
  private Fence fence(GroupState g) throws IOException {
    if (g.fence == null) {
      g.fence = claim(g.directory);
    }
    return g.fence;
  }

  /** Two ids only share a directory if their SHA-256 hashes collide; refuse rather than mix. */
  private static void checkSameGroup(GroupState g, String groupId) throws IOException {
    if (groupId != null && g.loaded && g.groupId != null && !g.groupId.equals(groupId)) {
      throw new IOException(
          g.directory + " holds another group than the one asked for: hashed names collide");
    }
  }

  /**
   * Appends one frame to the group's current log object, naming the group first if the object is
   * new. If the append fails, the end of the object is unknown: the entry is marked for reading
   * again, which sends later writes to a new object if a torn frame is there.
   */
  private void append(GroupState g, String groupId, int sizeHint, Consumer<FrameWriter> records)
      throws IOException {
    if (g.logStarted && g.logAppends >= store.maxAppendsPerObject()) {
      // Appends cost more the more an object holds (on SeaweedFS each rewrites the entry with all
      // its chunks): go on in the generation's next log object, which names the group again.
      g.sequence++;
      g.logStarted = false;
      g.logSize = 0;
      g.logAppends = 0;
    }
    FrameWriter w = new FrameWriter(sizeHint + 64);
    ByteBuf frame;
    try {
      if (!g.logStarted) {
        w.groupId(groupId);
      }
      records.accept(w);
      frame = w.finish();
    } catch (RuntimeException e) {
      w.release();
      throw e;
    }
    int length = frame.readableBytes();
    try {
      store.append(g.logPath(), frame, fence(g));
    } catch (IOException | RuntimeException e) {
      g.loaded = false;
      throw e;
    } finally {
      frame.release();
    }
    g.groupId = groupId;
    g.logStarted = true;
    g.unpublished = true;
    g.lastAppendNanos = System.nanoTime();
    g.logAppends++;
    g.logSize += length;
    g.bytesSinceSnapshot += length;
  }

  /**
   * Writes the group's state as the next generation's snapshot once this generation's logs are
   * large enough, then deletes the older generations. The write that triggered it is already
   * durable, so a failure here is logged, not thrown.
   */
  private void maybeCompact(GroupState g) {
    if (!g.compactNow && g.bytesSinceSnapshot < Math.max(compactionBytes, g.snapshotSize)) {
      return;
    }
    long next = g.generation + 1;
    String path = g.directory + "/" + GroupState.snapshotName(next);
    ByteBuf snapshot = g.snapshotFrame();
    long size = snapshot.readableBytes();
    try {
      store.put(path, snapshot, fence(g));
    } catch (IOException | RuntimeException e) {
      // Whether the snapshot landed is unknown; reading the directory again settles it.
      LOG.warn("Could not write snapshot {} for {}", path, g.describe(), e);
      g.loaded = false;
      return;
    } finally {
      snapshot.release();
    }
    g.generation = next;
    g.sequence = 0;
    g.logSize = 0;
    g.logStarted = false;
    g.logAppends = 0;
    g.bytesSinceSnapshot = 0;
    g.snapshotSize = size;
    g.compactNow = false;
    deleteGenerationsBefore(g, next);
  }

  private void deleteGenerationsBefore(GroupState g, long generation) {
    try {
      for (ObjectInfo o : store.list(g.directory)) {
        long objectGeneration = GroupDirectoryReader.generationOf(o);
        if (objectGeneration >= 0 && objectGeneration < generation) {
          store.delete(g.directory + "/" + o.name());
        }
      }
    } catch (IOException e) {
      // Superseded objects are ignored when reading; the next compaction deletes them.
      LOG.warn("Could not delete old objects of {}", g.describe(), e);
    }
  }

  /**
   * Deletes a group directory so that a crash part way is noticed: a marker goes in first, the
   * group's objects are deleted, and the directory (with the marker) goes last.
   */
  private void deleteDirectory(GroupState g) throws IOException {
    String directory = g.directory;
    List<ObjectInfo> objects = store.list(directory);
    if (!objects.isEmpty()) {
      store.put(directory + "/" + GroupState.DELETING_MARKER, Unpooled.EMPTY_BUFFER, fence(g));
      for (ObjectInfo o : objects) {
        if (!o.name().equals(GroupState.DELETING_MARKER)) {
          store.delete(directory + "/" + o.name());
        }
      }
    }
    store.delete(directory);
  }
}
