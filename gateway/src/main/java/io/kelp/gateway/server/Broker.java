package io.kelp.gateway.server;

import io.kelp.engine.catalog.TopicCatalog;
import io.kelp.engine.log.LogEngine;
import io.kelp.engine.log.LogEngines;
import io.kelp.engine.producer.ProducerIdAllocator;
import io.kelp.engine.store.LocalObjectStore;
import io.kelp.engine.store.ObjectStore;
import io.kelp.gateway.api.ApiHandlers;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.cli.Kelp;
import io.kelp.gateway.coordinator.CommittedOffsets;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import io.kelp.gateway.coordinator.consumer.ConsumerGroups;
import io.kelp.gateway.coordinator.store.ObjectStoreGroupStore;
import io.kelp.gateway.metrics.KelpMetrics;
import io.kelp.gateway.metrics.MetricsServer;
import io.kelp.gateway.topic.TopicRegistry;
import io.kelp.seaweed.SeaweedObjectStore;
import io.kelp.seaweed.WriteTimings;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kelp broker: the store, the topic catalog, the log engine, the handler table, the Kafka
 * listener and the metrics endpoint, started in that order and stopped in reverse. Stopping flushes
 * every partition durably before the store closes.
 */
public final class Broker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

  /** How long a SeaweedFS write keeps retrying: about a producer's default request timeout. */
  private static final Duration SEAWEED_RETRY = Duration.ofSeconds(30);

  /** How long a starting broker waits for its SeaweedFS filer to answer. */
  private static final Duration FILER_STARTUP_WAIT = Duration.ofMinutes(5);

  /** How often group session and rebalance timeouts are checked. */
  private static final long GROUP_SWEEP_MS = 100;

  /** How long after a try the topics left out at start-up are tried again. */
  static final long LEFT_OUT_RETRY_MS = 5_000;

  /**
   * How long the start waits for the groups to be read back; those still being read then are
   * answered COORDINATOR_LOAD_IN_PROGRESS until they are (see {@link GroupCoordinator#load}).
   */
  static final long GROUP_LOAD_WAIT_MS = 10_000;

  private final BrokerConfig config;
  private final ObjectStore store;
  private final LogEngine engine;

  /** The request pools: blocking work, fetches' store reads, group APIs, Metadata. */
  private final List<ExecutorService> requestPools;

  private final BrokerServices services;
  private final KafkaServer server;
  private MetricsServer metricsServer;

  /** Tries the topics left out at start-up again; null when none was. */
  private ScheduledExecutorService leftOutRetries;

  private final HostPort bound;
  private final GroupCoordinator groups;
  private volatile boolean serving;
  private boolean closed;

  private Broker(
      BrokerConfig config,
      ObjectStore store,
      LogEngine engine,
      List<ExecutorService> requestPools,
      BrokerServices services,
      KafkaServer server,
      HostPort bound,
      GroupCoordinator groups) {
    this.config = config;
    this.groups = groups;
    this.store = store;
    this.engine = engine;
    this.requestPools = requestPools;
    this.services = services;
    this.server = server;
    this.bound = bound;
  }

  /** A pool of {@code request.threads} daemon threads, added to {@code pools}. */
  private static ExecutorService requestPool(
      BrokerConfig config, String name, List<ExecutorService> pools) {
    ExecutorService pool =
        Executors.newFixedThreadPool(config.requestThreads(), new DefaultThreadFactory(name, true));
    pools.add(pool);
    return pool;
  }

  /** Starts a broker and logs the ready line once it accepts clients. */
  public static Broker start(BrokerConfig config) throws IOException, InterruptedException {
    return start(config, ApiHandlers.standard());
  }

  /** Starts a broker serving the APIs of {@code handlers} (tests add or replace some). */
  public static Broker start(BrokerConfig config, ApiHandlers handlers)
      throws IOException, InterruptedException {
    Path dataDir = config.dataDir().toAbsolutePath().normalize();
    ObjectStore store = openStore(config, dataDir);
    LogEngine engine = null;
    List<ExecutorService> requestPools = new ArrayList<>();
    KafkaServer server = null;
    GroupCoordinator groups = null;
    try {
      String clusterId = ClusterIdentity.clusterId(store);
      long epoch = ClusterIdentity.nextBrokerEpoch(store, config.brokerId());
      engine = LogEngines.create(store, config.engineConfig());
      TopicRegistry topics =
          new TopicRegistry(
              new TopicCatalog(store, config.namespace()),
              engine,
              epoch,
              System::currentTimeMillis);
      topics.openAll();
      ExecutorService blocking = requestPool(config, "kelp-request", requestPools);
      // Fetches that read the store have threads of their own: a volume server that is away holds
      // each such read for seconds, which must not hold up the group and admin requests.
      ExecutorService fetchReads = requestPool(config, "kelp-fetch", requestPools);
      // So do the group APIs: a group's request waits for the group's write to the store (its
      // first one claims the group's directory on the filer), which must not hold up Metadata and
      // the admin requests.
      ExecutorService groupRequests = requestPool(config, "kelp-group-request", requestPools);
      // And Metadata that creates no topic, which clients need most: never behind a store write.
      ExecutorService metadataReads = requestPool(config, "kelp-metadata", requestPools);
      KelpMetrics metrics = new KelpMetrics();
      metrics.engineGauge(engine::pendingBytes);
      if (store instanceof SeaweedObjectStore seaweed) {
        WriteTimings t = seaweed.timings();
        metrics.storeStage("upload", t, WriteTimings::uploads, WriteTimings::uploadNanos);
        metrics.storeStage("commit", t, WriteTimings::commits, WriteTimings::commitNanos);
        metrics.storeCounter(
            "kelp.store.filer.transactions",
            "Filer transactions of the group commit's writers",
            seaweed,
            SeaweedObjectStore::writerTransactions);
        metrics.storeCounter(
            "kelp.store.filer.transaction.requests",
            "Filer requests those transactions went in, several to a request when batched",
            seaweed,
            SeaweedObjectStore::writerTransactionRequests);
      }
      BrokerServices services =
          new BrokerServices(
              config,
              clusterId,
              topics,
              engine,
              new ProducerIdAllocator(store),
              blocking,
              metrics,
              System::currentTimeMillis);
      groups = startGroupCoordinator(config, store, topics);
      services.groups(groups);
      server = KafkaServer.start(config, handlers, services);
      HostPort bound = server.boundAddress(config.listen());
      services.advertiseIfUnset(bound);
      services.fetchReads(fetchReads);
      services.groupRequests(groupRequests);
      services.metadataReads(metadataReads);
      Broker broker =
          new Broker(config, store, engine, requestPools, services, server, bound, groups);
      if (config.metricsListen() != null) {
        broker.metricsServer =
            MetricsServer.start(config.metricsListen(), metrics, () -> broker.serving);
        LOG.info(
            "Metrics on http://{}/metrics, health on http://{}/health",
            broker.metricsServer.address(),
            broker.metricsServer.address());
      }
      if (topics.leftOutCount() > 0) {
        broker.retryLeftOutTopics(topics);
      }
      broker.serving = true;
      LOG.info(
          "Kelp {} ready on {} (store {}, broker {}, tail cache {} MiB)",
          Kelp.version(),
          bound,
          store.describe(),
          config.brokerId(),
          config.tailCacheBytes() >> 20);
      return broker;
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (server != null) {
        server.close();
      }
      requestPools.forEach(ExecutorService::shutdownNow);
      if (groups != null) {
        groups.close();
      }
      if (engine != null) {
        engine.close();
      }
      store.close();
      throw e;
    }
  }

  /** The store the configuration names: the local one under {@code dataDir}, or SeaweedFS. */
  private static ObjectStore openStore(BrokerConfig config, Path dataDir) throws IOException {
    if (config.store().equals("seaweedfs")) {
      SeaweedObjectStore store =
          new SeaweedObjectStore(
              config.filer().toString(),
              config.seaweedCollection(),
              config.seaweedReplication(),
              SEAWEED_RETRY,
              config.seaweedReadCacheBytes(),
              config.seaweedMaxAppendsPerObject(),
              config.seaweedFsync(),
              PooledByteBufAllocator.DEFAULT);
      try {
        store.awaitFiler(FILER_STARTUP_WAIT);
      } catch (IOException e) {
        store.close();
        throw e;
      }
      checkVolumesMeanwhile(store);
      return store;
    }
    Files.createDirectories(dataDir);
    return LocalObjectStore.exclusive(dataDir, PooledByteBufAllocator.DEFAULT);
  }

  /**
   * Stores and reads back a test chunk on a thread of its own, to say in the log whether SeaweedFS
   * takes chunks: only a diagnostic, so the start does not wait for it (with no volume server
   * answering, an assignment alone takes the filer 20 s to refuse). Writes retry until a volume
   * server takes them.
   */
  private static void checkVolumesMeanwhile(SeaweedObjectStore store) {
    Thread check =
        new Thread(
            () -> {
              try {
                LOG.info(
                    "SeaweedFS volume server {} stores and serves chunks", store.checkVolumes());
              } catch (IOException | RuntimeException e) {
                LOG.warn(
                    "SeaweedFS: storing a test chunk failed; produce requests will wait for a"
                        + " volume server that answers: {}",
                    e.toString());
              }
            },
            "kelp-volume-check");
    check.setDaemon(true);
    check.start();
  }

  /**
   * Reads every group back from the store and starts the sweep of session and rebalance timeouts
   * and the periodic expiry of committed offsets.
   */
  private static GroupCoordinator startGroupCoordinator(
      BrokerConfig config, ObjectStore store, TopicRegistry topics)
      throws IOException, InterruptedException {
    GroupConfig groupConfig = config.groupConfig();
    GroupCoordinator groups =
        new GroupCoordinator(
            new ObjectStoreGroupStore(store), topics, groupConfig, System::currentTimeMillis);
    try {
      ClassicGroups.register(groups);
      ConsumerGroups.register(groups);
      groups.load(GROUP_LOAD_WAIT_MS);
      groups.start(GROUP_SWEEP_MS);
      CommittedOffsets offsets = new CommittedOffsets(groups);
      long every = groupConfig.offsetsRetentionCheckIntervalMs();
      groups
          .storeWork()
          .scheduleWithFixedDelay(
              () -> {
                try {
                  offsets.expire();
                } catch (RuntimeException e) {
                  LOG.warn("Expiring committed offsets failed", e);
                }
              },
              every,
              every,
              TimeUnit.MILLISECONDS);
      return groups;
    } catch (IOException | InterruptedException | RuntimeException e) {
      groups.close();
      throw e;
    }
  }

  /**
   * Tries the topics left out at start-up again every {@link #LEFT_OUT_RETRY_MS}, until none is
   * left to try, so that a topic whose partitions could not be opened for a while (the store
   * unreachable for part of the start, say) is served without a restart.
   */
  private void retryLeftOutTopics(TopicRegistry topics) {
    ScheduledExecutorService retries =
        Executors.newSingleThreadScheduledExecutor(
            new DefaultThreadFactory("kelp-topic-retry", true));
    leftOutRetries = retries;
    retries.scheduleWithFixedDelay(
        () -> {
          try {
            if (topics.retryLeftOut() == 0) {
              retries.shutdown();
            }
          } catch (RuntimeException e) {
            LOG.warn("Trying the topics left out at start-up again failed", e);
          }
        },
        LEFT_OUT_RETRY_MS,
        LEFT_OUT_RETRY_MS,
        TimeUnit.MILLISECONDS);
  }

  /** The address clients connect to (the real port when port 0 was asked for). */
  public HostPort address() {
    return bound;
  }

  /** The metrics endpoint's address, or null when it is off. */
  public synchronized HostPort metricsAddress() {
    return metricsServer == null ? null : metricsServer.address();
  }

  public BrokerServices services() {
    return services;
  }

  public boolean serving() {
    return serving;
  }

  /**
   * Stops serving: closes the listener and every connection, waits for work in progress, then
   * flushes every partition to the store and closes it.
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    serving = false;
    LOG.info("Stopping: closing client connections");
    server.close();
    if (leftOutRetries != null) {
      leftOutRetries.shutdownNow();
    }
    requestPools.forEach(ExecutorService::shutdown);
    try {
      for (ExecutorService pool : requestPools) {
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
          pool.shutdownNow();
        }
      }
      if (leftOutRetries != null && !leftOutRetries.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("A try at opening the topics left out at start-up is still running");
      }
    } catch (InterruptedException e) {
      requestPools.forEach(ExecutorService::shutdownNow);
      Thread.currentThread().interrupt();
    }
    groups.close();
    LOG.info("Flushing every partition to the store");
    try {
      engine.close();
    } finally {
      store.close();
      if (metricsServer != null) {
        metricsServer.close();
      }
    }
    LOG.info("Kelp stopped; everything is flushed to {}", store.describe());
  }
}
