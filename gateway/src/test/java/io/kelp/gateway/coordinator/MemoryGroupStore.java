package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fake group store in memory, for tests of group logic that need a store which can be told to
 * fail. The real store is tested on its own.
 */
public final class MemoryGroupStore implements GroupStore {
  private final Map<String, byte[]> metadata = new LinkedHashMap<>();
  private final Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new LinkedHashMap<>();
  private final Set<String> unreadable = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> loads = new ConcurrentHashMap<>();
  private final Object hold = new Object();
  private boolean held;
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

  /**
   * Makes loading the group with this id fail with an IOException until {@link #readable} is called
   * for it, as a group kept on a volume server that is down does.
   */
  public void unreadable(String groupId) {
    unreadable.add(groupId);
  }

  public void readable(String groupId) {
    unreadable.remove(groupId);
  }

  /** While on, every {@link #load} waits, as reads of a slow store do. */
  public void holdLoads(boolean on) {
    synchronized (hold) {
      held = on;
      hold.notifyAll();
    }
  }

  /** How many times {@link #load} was called for this group. */
  public int loads(String groupId) {
    return loads.getOrDefault(groupId, 0);
  }

  @Override
  public synchronized List<String> locations() {
    Set<String> ids = new LinkedHashSet<>(metadata.keySet());
    ids.addAll(offsets.keySet());
    return new ArrayList<>(ids);
  }

  @Override
  public StoredGroup load(String location) throws IOException {
    loads.merge(location, 1, Integer::sum);
    synchronized (hold) {
      while (held) {
        try {
          hold.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted while held");
        }
      }
    }
    if (unreadable.contains(location)) {
      throw new IOException("group " + location + " cannot be read (test fault)");
    }
    synchronized (this) {
      if (!metadata.containsKey(location) && !offsets.containsKey(location)) {
        return null;
      }
      return new StoredGroup(
          location,
          metadata.get(location),
          new LinkedHashMap<>(offsets.getOrDefault(location, Map.of())));
    }
  }

  @Override
  public String location(String groupId) {
    return groupId;
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
