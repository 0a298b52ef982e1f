package io.kelp.gateway.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kelp.gateway.topic.TopicRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator of this broker: every group it coordinates, by id, whatever its protocol,
 * with the store that keeps them, a timer for session and rebalance timeouts, and the settings.
 * Handlers translate requests into calls on the groups; the groups decide.
 *
 * <p>Group membership state is written as a JSON object whose {@code type} field names the {@link
 * GroupLoader} that reads it back on start.
 */
public final class GroupCoordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);
  static final ObjectMapper JSON = new ObjectMapper();

  private final GroupStore store;
  private final TopicRegistry topics;
  private final GroupConfig config;
  private final LongSupplier clock;
  private final ScheduledExecutorService timer;
  private final Map<String, Group> groups = new ConcurrentHashMap<>();
  private final Map<String, GroupLoader> loaders = new ConcurrentHashMap<>();

  public GroupCoordinator(
      GroupStore store, TopicRegistry topics, GroupConfig config, LongSupplier clock) {
    this.store = store;
    this.topics = topics;
    this.config = config;
    this.clock = clock;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kelp-group-timer");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts the sweep that runs every group's timeouts ({@link Group#tick}) every {@code periodMs}.
   */
  public void start(long periodMs) {
    timer.scheduleWithFixedDelay(this::sweep, periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  private void sweep() {
    long now = nowMs();
    for (Group g : groups.values()) {
      try {
        g.tick(now);
      } catch (RuntimeException e) {
        LOG.error("Timeouts of group {} failed", g.groupId(), e);
      }
    }
  }

  /** Registers how groups of one type are read back from the store. */
  public void registerLoader(String type, GroupLoader loader) {
    loaders.put(type, loader);
  }

  /** Reads every group back from the store; call once, before serving. */
  public void load() throws IOException {
    List<StoredGroup> stored = store.loadAll();
    for (StoredGroup s : stored) {
      Group group = restore(s);
      synchronized (group) {
        group.offsets().putAll(s.offsets());
      }
      groups.put(s.groupId(), group);
    }
    if (!stored.isEmpty()) {
      LOG.info("Loaded {} groups from the store", stored.size());
    }
  }

  private Group restore(StoredGroup s) throws IOException {
    if (s.metadata() != null && s.metadata().length > 0) {
      JsonNode node = JSON.readTree(s.metadata());
      String type = node.path("type").asText("");
      GroupLoader loader = loaders.get(type);
      if (loader == null) {
        throw new IOException(
            "group " + s.groupId() + " has state of unknown type '" + type + "' in the store");
      }
      Group g = loader.restore(s.groupId(), node, this);
      if (g != null) {
        return g;
      }
    }
    GroupLoader empty = loaders.get("classic");
    if (empty == null) {
      throw new IOException("no loader for classic groups");
    }
    return empty.restore(s.groupId(), JSON.createObjectNode().put("type", "classic"), this);
  }

  /** The group with this id, or null. */
  public Group group(String groupId) {
    return groups.get(groupId);
  }

  /** Adds {@code group} unless a group with its id exists; returns the one now registered. */
  public Group putIfAbsent(Group group) {
    Group existing = groups.putIfAbsent(group.groupId(), group);
    return existing == null ? group : existing;
  }

  /** Puts {@code next} in place of {@code current} if {@code current} is still registered. */
  public boolean replace(Group current, Group next) {
    return groups.replace(current.groupId(), current, next);
  }

  /** Forgets {@code group} if it is still the one registered under its id. */
  public void remove(Group group) {
    groups.remove(group.groupId(), group);
  }

  /** A snapshot of every group. */
  public Collection<Group> groups() {
    return new ArrayList<>(groups.values());
  }

  public GroupStore store() {
    return store;
  }

  public TopicRegistry topics() {
    return topics;
  }

  public GroupConfig config() {
    return config;
  }

  public long nowMs() {
    return clock.getAsLong();
  }

  /** Runs session and rebalance timeouts; tasks take the group's monitor themselves. */
  public ScheduledExecutorService timer() {
    return timer;
  }

  /** The JSON mapper groups use for their stored state. */
  public static ObjectMapper json() {
    return JSON;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
