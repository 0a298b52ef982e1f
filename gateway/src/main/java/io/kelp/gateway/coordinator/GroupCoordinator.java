package io.kelp.gateway.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kelp.engine.store.FencedException;
import io.kelp.gateway.topic.TopicRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

  /** How many groups are read from the store at once. */
  static final int LOAD_THREADS = 4;

  /**
   * How long a group is left alone after a write before its writes are published to readers of the
   * store other than this broker ({@link GroupStore#publishIdle}).
   */
  static final long PUBLISH_IDLE_MS = 1000;

  /** The longest pause between tries at reading a group that failed to read. */
  static final long MAX_LOAD_RETRY_MS = 30_000;

  /**
   * Threads that run the groups' timeouts. A group's write to the store holds its monitor until the
   * store answers (on SeaweedFS, up to the store's retry time while the filer is slow), and a
   * timeout of that group waits for it: it holds one of these threads, not every group's timeouts.
   */
  static final int TIMER_THREADS = 4;

  /** How soon a timeout put off because its group is writing to the store is tried again. */
  public static final long BUSY_RETRY_MS = 100;

  private final GroupStore store;

  /** {@link #store}, counting each group's writes under way in {@link #writing}. */
  private final GroupStore tracked;

  /** Groups with a write to the store under way, with how many. */
  private final Map<String, Integer> writing = new ConcurrentHashMap<>();

  /** Groups whose timeouts a timer thread runs or is about to run. */
  private final Set<Group> ticking = ConcurrentHashMap.newKeySet();

  /** Publishes idle groups and expires offsets: store work that must not hold up the timeouts. */
  private final ScheduledExecutorService storeWork;

  private final TopicRegistry topics;
  private final GroupConfig config;
  private final LongSupplier clock;
  private final ScheduledExecutorService timer;
  private final Map<String, Group> groups = new ConcurrentHashMap<>();
  private final Map<String, GroupLoader> loaders = new ConcurrentHashMap<>();

  /** Where the groups not read back yet are kept ({@link GroupStore#location}). */
  private final Set<String> unread = ConcurrentHashMap.newKeySet();

  /** Reads groups back; null until {@link #load} has groups to read. */
  private volatile ExecutorService loads;

  private volatile FencedException fenced;

  public GroupCoordinator(
      GroupStore store, TopicRegistry topics, GroupConfig config, LongSupplier clock) {
    this.store = store;
    this.topics = topics;
    this.config = config;
    this.clock = clock;
    this.tracked = new WriteCountingStore(store, writing);
    AtomicInteger timerThreads = new AtomicInteger();
    this.timer =
        Executors.newScheduledThreadPool(
            TIMER_THREADS,
            r -> {
              Thread t = new Thread(r, "kelp-group-timer-" + timerThreads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.storeWork =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kelp-group-store");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts the sweep that runs every group's timeouts ({@link Group#tick}) every {@code periodMs},
   * and the one that publishes the writes of groups left alone for {@link #PUBLISH_IDLE_MS}.
   */
  public void start(long periodMs) {
    timer.scheduleWithFixedDelay(this::sweep, periodMs, periodMs, TimeUnit.MILLISECONDS);
    storeWork.scheduleWithFixedDelay(
        this::publishIdle, PUBLISH_IDLE_MS, PUBLISH_IDLE_MS / 2, TimeUnit.MILLISECONDS);
  }

  private void publishIdle() {
    try {
      store.publishIdle(PUBLISH_IDLE_MS);
    } catch (RuntimeException e) {
      LOG.warn("Publishing the writes of idle groups failed", e);
    }
  }

  /**
   * Hands each group's timeouts to a timer thread, leaving out the groups that are writing to the
   * store (their timeouts wait for the write; they run at a later sweep) and those whose last
   * timeouts still run, so that a group waiting on the store holds up no other group. Groups with
   * no timeouts to run (empty classic groups, KIP-848 groups, whose members have timers of their
   * own) are not handed over at all: a broker with thousands of groups at rest submits nothing for
   * them.
   */
  private void sweep() {
    for (Group g : groups.values()) {
      if (!g.hasTimeouts() || writing(g.groupId()) || !ticking.add(g)) {
        continue;
      }
      try {
        timer.execute(
            () -> {
              try {
                g.tick(nowMs());
              } catch (RuntimeException e) {
                LOG.error("Timeouts of group {} failed", g.groupId(), e);
              } finally {
                ticking.remove(g);
              }
            });
      } catch (RejectedExecutionException closed) {
        ticking.remove(g);
        return;
      }
    }
  }

  /**
   * Whether a write of the group with this id to the store is under way: its monitor is held until
   * the store answers. Timeouts put such a group off rather than wait for it.
   */
  public boolean writing(String groupId) {
    return writing.containsKey(groupId);
  }

  /** Registers how groups of one type are read back from the store. */
  public void registerLoader(String type, GroupLoader loader) {
    loaders.put(type, loader);
  }

  /**
   * Reads every group back from the store and returns once all are read, or once {@code waitMs}
   * have passed; call once, before serving. Groups are read several at a time. A group that cannot
   * be read (the store failing for it: on SeaweedFS, a volume server its last writes went to
   * unreachable) is tried again in the background, with a growing pause, until it reads back;
   * meanwhile, and while the first reads are still running, {@link #loading} says so for it, and
   * requests for it are answered COORDINATOR_LOAD_IN_PROGRESS, which clients retry.
   *
   * @throws FencedException if another coordinator has taken a group over before the wait ended
   * @throws IOException if the store cannot list its groups
   */
  public void load(long waitMs) throws IOException, InterruptedException {
    List<String> locations = store.locations();
    if (locations.isEmpty()) {
      return;
    }
    unread.addAll(locations);
    loads =
        Executors.newFixedThreadPool(
            Math.min(LOAD_THREADS, locations.size()),
            r -> {
              Thread t = new Thread(r, "kelp-group-load");
              t.setDaemon(true);
              return t;
            });
    CountDownLatch firstTries = new CountDownLatch(locations.size());
    for (String location : locations) {
      submitLoad(location, 1, firstTries);
    }
    if (!firstTries.await(waitMs, TimeUnit.MILLISECONDS)) {
      LOG.warn(
          "{} of {} groups are still being read after {} ms; requests for them are answered"
              + " COORDINATOR_LOAD_IN_PROGRESS until they are",
          unread.size(),
          locations.size(),
          waitMs);
    }
    FencedException fenced = this.fenced;
    if (fenced != null) {
      throw fenced;
    }
    int read = groups.size();
    if (read > 0) {
      LOG.info("Loaded {} groups from the store", read);
    }
  }

  /** {@link #load(long)}, waiting for every group's first read however long it takes. */
  public void load() throws IOException, InterruptedException {
    load(Long.MAX_VALUE);
  }

  private void submitLoad(String location, int attempt, CountDownLatch firstTries) {
    try {
      loads.execute(() -> loadOne(location, attempt, firstTries));
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  /** Reads one group; on failure schedules the next try. */
  private void loadOne(String location, int attempt, CountDownLatch firstTries) {
    try {
      StoredGroup s = store.load(location);
      if (s != null) {
        Group group = restore(s);
        synchronized (group) {
          group.offsets().putAll(s.offsets());
        }
        // Registered before it stops counting as loading, so no request finds neither.
        groups.put(s.groupId(), group);
        if (attempt > 1) {
          LOG.info("Group {} read back on try {}; it is served now", s.groupId(), attempt);
        }
      }
      unread.remove(location);
    } catch (FencedException e) {
      LOG.error(
          "Group directory {}: another group coordinator has taken it over; not tried again",
          location,
          e);
      this.fenced = e;
    } catch (IOException | RuntimeException e) {
      long pauseMs = Math.min(MAX_LOAD_RETRY_MS, 1000L << Math.min(attempt - 1, 5));
      if (attempt == 1 || attempt % 10 == 0) {
        LOG.warn(
            "Reading group {} from the store failed (try {}); requests for it are answered"
                + " COORDINATOR_LOAD_IN_PROGRESS; trying again in {} ms: {}",
            location,
            attempt,
            pauseMs,
            e.toString());
      }
      try {
        timer.schedule(
            () -> submitLoad(location, attempt + 1, null), pauseMs, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closed) {
        // closing
      }
    } finally {
      if (firstTries != null) {
        firstTries.countDown();
      }
    }
  }

  /**
   * Whether the group with this id may be in the store but is not read back yet: requests for it
   * must wait (COORDINATOR_LOAD_IN_PROGRESS) rather than see it missing.
   */
  public boolean loading(String groupId) {
    return !unread.isEmpty() && groupId != null && unread.contains(store.location(groupId));
  }

  /** Whether any group is not read back yet ({@link #loading}). */
  public boolean loadingAny() {
    return !unread.isEmpty();
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

  /** The store, for the groups' writes: each write counts in {@link #writing} while it runs. */
  public GroupStore store() {
    return tracked;
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

  /**
   * Runs session and rebalance timeouts, on several threads; tasks take the group's monitor
   * themselves, and put off a group that is {@link #writing} rather than wait for it.
   */
  public ScheduledExecutorService timer() {
    return timer;
  }

  /**
   * Runs periodic store work over many groups (publishing, offset expiry), apart from the timeouts,
   * which a slow store must not hold up.
   */
  public ScheduledExecutorService storeWork() {
    return storeWork;
  }

  /** The JSON mapper groups use for their stored state. */
  public static ObjectMapper json() {
    return JSON;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    storeWork.shutdownNow();
    ExecutorService loads = this.loads;
    if (loads != null) {
      loads.shutdownNow();
    }
  }
}
