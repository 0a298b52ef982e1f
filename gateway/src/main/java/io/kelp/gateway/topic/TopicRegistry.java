package io.kelp.gateway.topic;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.catalog.TopicCatalog;
import io.kelp.engine.catalog.TopicInfo;
import io.kelp.engine.log.LogEngine;
import io.kelp.engine.log.PartitionLog;
import io.kelp.engine.store.FencedException;
import io.kelp.gateway.config.TopicConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics this broker serves, kept in step with the catalog in the store and the open partition
 * logs of the engine. Lookups are lock-free and never block; changes (create, delete, grow,
 * reconfigure) are serialised, block on the store and so run off the network threads.
 */
public final class TopicRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(TopicRegistry.class);

  private final TopicCatalog catalog;
  private final LogEngine engine;
  private final long ownerEpoch;
  private final LongSupplier clock;
  private final Map<String, LiveTopic> byName = new ConcurrentHashMap<>();
  private final Map<UUID, LiveTopic> byId = new ConcurrentHashMap<>();

  /**
   * Topics whose file reads back but a partition could not be opened, with what they are opened
   * with when {@link #retryLeftOut} tries again. Guarded by this.
   */
  private final Map<String, LeftOut> leftOut = new TreeMap<>();

  private record LeftOut(TopicInfo info, TopicConfig config) {}

  /** Topics not tried again: another writer holds one of their partitions. Guarded by this. */
  private final Set<String> givenUp = new TreeSet<>();

  /**
   * @param ownerEpoch the epoch this broker claims partition directories with; it is also the
   *     leader epoch stamped into appended batches
   */
  public TopicRegistry(
      TopicCatalog catalog, LogEngine engine, long ownerEpoch, LongSupplier clock) {
    this.catalog = catalog;
    this.engine = engine;
    this.ownerEpoch = ownerEpoch;
    this.clock = clock;
  }

  /**
   * Loads the catalog and opens (recovering if needed) every partition log, several at once: on
   * SeaweedFS each takes a few filer round trips. A topic whose file or configs cannot be used, or
   * one of whose partitions cannot be opened (its metadata damaged, say), is left out and logged
   * ({@link TopicCatalog#markUnreadable}); the others are served. The start still fails when
   * another writer holds a partition (a second broker with this one's epoch: it must not run).
   */
  public synchronized void openAll() throws IOException {
    catalog.load();
    List<TopicInfo> topics = new ArrayList<>();
    List<TopicPartition> all = new ArrayList<>();
    Map<String, TopicInfo> infos = new HashMap<>();
    Map<String, TopicConfig> configs = new HashMap<>();
    for (TopicInfo info : catalog.list()) {
      try {
        configs.put(info.name(), TopicConfig.of(info.configs()));
      } catch (RuntimeException e) {
        catalog.markUnreadable(info.name(), badConfigs(info, e));
        continue;
      }
      topics.add(info);
      infos.put(info.name(), info);
      for (int p = 0; p < info.partitions(); p++) {
        all.add(new TopicPartition(info.name(), p));
      }
    }
    List<Attempt> attempts =
        PartitionOpener.openEach(
            all, tp -> reopen(infos.get(tp.topic()), tp, configs.get(tp.topic())));
    failIfNeeded(attempts);
    int next = 0;
    int opened = 0;
    for (TopicInfo info : topics) {
      List<Attempt> own = attempts.subList(next, next + info.partitions());
      next += info.partitions();
      Optional<Attempt> failed = own.stream().filter(a -> a.failure() != null).findFirst();
      if (failed.isPresent()) {
        own.stream().filter(a -> a.log() != null).forEach(a -> closeQuietly(a.tp()));
        catalog.markUnreadable(info.name(), whyNotOpened(info, failed.get()));
        leftOut.put(info.name(), new LeftOut(info, configs.get(info.name())));
        continue;
      }
      publish(
          new LiveTopic(info, configs.get(info.name()), own.stream().map(Attempt::log).toList()));
      opened += info.partitions();
    }
    LOG.info("Opened {} topics ({} partitions)", byName.size(), opened);
  }

  private String badConfigs(TopicInfo info, RuntimeException e) {
    return catalog.topicDir(info.name())
        + "/"
        + TopicCatalog.TOPIC_FILE
        + " has configs that are not valid ("
        + info.configs()
        + "): "
        + e.getMessage();
  }

  private String whyNotOpened(TopicInfo info, Attempt failed) {
    return "partition "
        + failed.tp().partition()
        + " ("
        + catalog.partitionDir(info, failed.tp().partition())
        + ") could not be opened: "
        + failed.failure();
  }

  /**
   * Tries again the topics left out at start-up: one whose file could not be read or used (an edit
   * by hand, since repaired) is read again, and one whose partitions could not all be opened (the
   * store unreachable for part of the start, a damaged {@code partition.meta} since repaired) is
   * opened again; a topic whose partitions all open now is served from then on. A topic deleted
   * meanwhile, or one whose partition another writer holds, is not tried again. Returns how many
   * topics are left to try.
   */
  public synchronized int retryLeftOut() {
    givenUp.retainAll(catalog.unreadableNames());
    for (String name : catalog.unreadableNames()) {
      if (leftOut.containsKey(name) || byName.containsKey(name) || givenUp.contains(name)) {
        continue;
      }
      Optional<TopicInfo> reread;
      try {
        reread = catalog.reread(name);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Reading topic {} again failed", name, e);
        continue;
      }
      if (reread.isEmpty()) {
        continue;
      }
      TopicInfo info = reread.get();
      try {
        leftOut.put(name, new LeftOut(info, TopicConfig.of(info.configs())));
        LOG.info("Topic {}: its {} reads back now", name, TopicCatalog.TOPIC_FILE);
      } catch (RuntimeException e) {
        catalog.markUnreadable(name, badConfigs(info, e));
      }
    }
    for (Iterator<Map.Entry<String, LeftOut>> it = leftOut.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, LeftOut> e = it.next();
      String name = e.getKey();
      TopicInfo info = e.getValue().info();
      if (byName.containsKey(name) || catalog.unreadable(name).isEmpty()) {
        it.remove(); // deleted (and perhaps created anew) meanwhile
        continue;
      }
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < info.partitions(); p++) {
        partitions.add(new TopicPartition(name, p));
      }
      List<Attempt> attempts;
      try {
        attempts =
            PartitionOpener.openEach(partitions, tp -> reopen(info, tp, e.getValue().config()));
      } catch (IOException | RuntimeException failure) {
        LOG.debug("Opening topic {} again failed", name, failure);
        continue;
      }
      Optional<Attempt> failed = attempts.stream().filter(a -> a.failure() != null).findFirst();
      if (failed.isPresent()) {
        attempts.stream().filter(a -> a.log() != null).forEach(a -> closeQuietly(a.tp()));
        catalog.markUnreadable(name, whyNotOpened(info, failed.get()));
        if (failed.get().failure() instanceof FencedException) {
          LOG.warn(
              "Topic {}: another writer holds partition {}; not tried again",
              name,
              failed.get().tp().partition());
          it.remove();
          givenUp.add(name);
        }
        continue;
      }
      catalog.markServed(info);
      publish(
          new LiveTopic(info, e.getValue().config(), attempts.stream().map(Attempt::log).toList()));
      it.remove();
      LOG.info(
          "Topic {}: its {} partitions opened on a later try; it is served now",
          name,
          info.partitions());
    }
    return leftOutCount();
  }

  /** How many topics left out at start-up {@link #retryLeftOut} still tries. */
  public synchronized int leftOutCount() {
    return (int) catalog.unreadableNames().stream().filter(n -> !givenUp.contains(n)).count();
  }

  /** A partition opened at start-up, or why it could not be. */
  private record Attempt(TopicPartition tp, PartitionLog log, Exception failure) {}

  private Attempt reopen(TopicInfo info, TopicPartition tp, TopicConfig config) {
    try {
      PartitionLog log =
          engine.reopen(
              tp, catalog.partitionDir(info, tp.partition()), config.logConfig(), ownerEpoch);
      return new Attempt(tp, log, null);
    } catch (IOException | RuntimeException e) {
      return new Attempt(tp, null, e);
    }
  }

  /**
   * Throws when the start must fail: another writer holds a partition (a second broker with this
   * one's epoch, which must not run); the first such failure, with the other failures suppressed.
   * Partitions that fail otherwise, even all of them (a volume server down that holds the last
   * writes of every partition), are left out and tried again.
   */
  private static void failIfNeeded(List<Attempt> attempts) throws IOException {
    List<Exception> failures =
        attempts.stream().map(Attempt::failure).filter(f -> f != null).toList();
    Optional<Exception> fenced =
        failures.stream().filter(f -> f instanceof FencedException).findFirst();
    if (fenced.isEmpty()) {
      return;
    }
    Exception first = fenced.get();
    failures.stream().filter(f -> f != first).forEach(first::addSuppressed);
    if (first instanceof IOException io) {
      throw io;
    }
    throw (RuntimeException) first;
  }

  private void closeQuietly(TopicPartition tp) {
    try {
      engine.closePartition(tp);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not close partition {}", tp, e);
    }
  }

  /** Opens partitions {@code from} (inclusive) to {@code to} (exclusive) of a topic. */
  private List<PartitionLog> openRange(TopicInfo info, int from, int to, TopicConfig config)
      throws IOException {
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = from; p < to; p++) {
      partitions.add(new TopicPartition(info.name(), p));
    }
    return PartitionOpener.openEach(partitions, tp -> open(info, tp.partition(), config));
  }

  private PartitionLog open(TopicInfo info, int partition, TopicConfig config) throws IOException {
    return engine.open(
        new TopicPartition(info.name(), partition),
        catalog.partitionDir(info, partition),
        config.logConfig(),
        ownerEpoch);
  }

  private void publish(LiveTopic topic) {
    byName.put(topic.name(), topic);
    byId.put(topic.topicId(), topic);
  }

  public Optional<LiveTopic> get(String name) {
    return name == null ? Optional.empty() : Optional.ofNullable(byName.get(name));
  }

  public Optional<LiveTopic> get(UUID topicId) {
    return topicId == null ? Optional.empty() : Optional.ofNullable(byId.get(topicId));
  }

  /** Every topic, sorted by name. */
  public List<LiveTopic> list() {
    return List.copyOf(new TreeMap<>(byName).values());
  }

  /** The existing topic whose name collides with {@code name} ('.' versus '_'), if any. */
  public Optional<String> collision(String name) {
    String key = TopicNames.collisionKey(name);
    for (String existing : byName.keySet()) {
      if (!existing.equals(name) && TopicNames.collisionKey(existing).equals(key)) {
        return Optional.of(existing);
      }
    }
    return Optional.empty();
  }

  /**
   * Creates a topic with validated configs and opens its logs.
   *
   * @throws IllegalStateException if it exists already
   */
  public synchronized LiveTopic create(String name, int partitions, Map<String, String> configs)
      throws IOException {
    if (byName.containsKey(name)) {
      throw new IllegalStateException("Topic '" + name + "' already exists.");
    }
    TopicInfo info = catalog.create(name, partitions, configs, clock.getAsLong());
    TopicConfig config = TopicConfig.of(info.configs());
    List<PartitionLog> logs;
    try {
      logs = openRange(info, 0, partitions, config);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Creating topic {} failed; removing it again", name, e);
      // Partitions that opened before the failure are open: delete them (a no-op for the rest).
      for (int p = 0; p < partitions; p++) {
        deleteQuietly(new TopicPartition(name, p));
      }
      catalog.delete(name);
      throw e;
    }
    LiveTopic topic = new LiveTopic(info, config, List.copyOf(logs));
    publish(topic);
    LOG.info("Created topic {} with {} partitions and configs {}", name, partitions, configs);
    return topic;
  }

  private void deleteQuietly(TopicPartition tp) {
    try {
      engine.deletePartition(tp);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not delete partition {}", tp, e);
    }
  }

  /**
   * Deletes a topic and its data, one that exists in the store but is not served too. Returns false
   * if there is no such topic.
   */
  public synchronized boolean delete(String name) throws IOException {
    LiveTopic topic = byName.remove(name);
    if (topic == null) {
      Optional<String> why = catalog.unreadable(name);
      if (why.isEmpty()) {
        return false;
      }
      catalog.delete(name);
      LOG.info("Deleted topic {}, which was not served: {}", name, why.get());
      return true;
    }
    byId.remove(topic.topicId());
    for (int p = 0; p < topic.partitions(); p++) {
      engine.deletePartition(new TopicPartition(name, p));
    }
    catalog.delete(name);
    LOG.info("Deleted topic {} ({} partitions)", name, topic.partitions());
    return true;
  }

  /** Grows a topic to {@code total} partitions. */
  public synchronized LiveTopic addPartitions(String name, int total) throws IOException {
    LiveTopic old = require(name);
    TopicInfo info = catalog.addPartitions(name, total, clock.getAsLong());
    List<PartitionLog> logs = new ArrayList<>(old.logs());
    logs.addAll(openRange(info, old.partitions(), total, old.config()));
    LiveTopic topic = new LiveTopic(info, old.config(), List.copyOf(logs));
    publish(topic);
    LOG.info("Topic {} now has {} partitions (was {})", name, total, old.partitions());
    return topic;
  }

  /** Replaces a topic's explicit configs (already validated) and applies them to its logs. */
  public synchronized LiveTopic setConfigs(String name, Map<String, String> configs)
      throws IOException {
    LiveTopic old = require(name);
    TopicInfo info = catalog.setConfigs(name, configs);
    TopicConfig config = TopicConfig.of(info.configs());
    for (PartitionLog log : old.logs()) {
      log.updateConfig(config.logConfig());
    }
    LiveTopic topic = new LiveTopic(info, config, old.logs());
    publish(topic);
    LOG.info("Topic {} configs are now {}", name, configs);
    return topic;
  }

  private LiveTopic require(String name) {
    LiveTopic topic = byName.get(name);
    if (topic == null) {
      throw new IllegalStateException("no topic " + name);
    }
    return topic;
  }

  /**
   * Why a topic that exists in the store is not served (its file, its configs or one of its
   * partitions cannot be used), or empty for a topic that is served or does not exist.
   */
  public Optional<String> unreadable(String name) {
    return catalog.unreadable(name);
  }

  /** The topics that exist in the store but are not served, sorted. */
  public List<String> unreadableNames() {
    return catalog.unreadableNames();
  }

  public long ownerEpoch() {
    return ownerEpoch;
  }
}
