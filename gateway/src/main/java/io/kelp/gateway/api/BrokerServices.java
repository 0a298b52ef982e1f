package io.kelp.gateway.api;

import io.kelp.engine.log.LogEngine;
import io.kelp.engine.producer.ProducerIdAllocator;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.metrics.KelpMetrics;
import io.kelp.gateway.server.BrokerConfig;
import io.kelp.gateway.server.HostPort;
import io.kelp.gateway.topic.TopicRegistry;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What handlers may use: the broker's settings and identity, its topics and logs, and an executor
 * for work that may block (store reads and writes, admin changes).
 */
public final class BrokerServices {
  private final BrokerConfig config;
  private final String clusterId;
  private final TopicRegistry topics;
  private final LogEngine engine;
  private final ProducerIdAllocator producerIds;
  private final Executor blocking;
  private final KelpMetrics metrics;
  private final LongSupplier clock;
  private volatile GroupCoordinator groups;
  private volatile Executor fetchReads;
  private volatile Executor groupRequests;
  private volatile GroupLanes groupLanes;
  private volatile Executor metadataReads;
  private volatile HostPort advertised;

  public BrokerServices(
      BrokerConfig config,
      String clusterId,
      TopicRegistry topics,
      LogEngine engine,
      ProducerIdAllocator producerIds,
      Executor blocking,
      KelpMetrics metrics,
      LongSupplier clock) {
    this.config = config;
    this.clusterId = clusterId;
    this.topics = topics;
    this.engine = engine;
    this.producerIds = producerIds;
    this.blocking = blocking;
    this.metrics = metrics;
    this.clock = clock;
    this.advertised = config.advertiseOrNull();
  }

  public BrokerConfig config() {
    return config;
  }

  public int brokerId() {
    return config.brokerId();
  }

  public String clusterId() {
    return clusterId;
  }

  /** The address clients are told to connect to. */
  public HostPort advertised() {
    return advertised;
  }

  /** Sets the advertised address once the listener is bound, if none was configured. */
  public void advertiseIfUnset(HostPort bound) {
    if (advertised == null) {
      advertised = bound;
    }
  }

  public TopicRegistry topics() {
    return topics;
  }

  public LogEngine engine() {
    return engine;
  }

  public ProducerIdAllocator producerIds() {
    return producerIds;
  }

  /** Runs work that may block; never block a network thread. */
  public Executor blocking() {
    return blocking;
  }

  /**
   * Runs the store reads of fetches: apart from {@link #blocking}, so that reads held up by the
   * store do not hold up other requests. The blocking executor until {@link #fetchReads(Executor)}
   * sets one.
   */
  public Executor fetchReads() {
    Executor e = fetchReads;
    return e == null ? blocking : e;
  }

  /** Sets the executor of {@link #fetchReads()}, when the broker starts. */
  public void fetchReads(Executor executor) {
    this.fetchReads = executor;
  }

  /**
   * Runs the group APIs: apart from {@link #blocking}, so that a group waiting on the store (its
   * write holds the group, and each of its members' requests) does not hold up other requests. The
   * blocking executor until {@link #groupRequests(Executor)} sets one.
   */
  public Executor groupRequests() {
    Executor e = groupRequests;
    return e == null ? blocking : e;
  }

  /**
   * Runs the requests of one group, one after another, on {@link #groupRequests()} ({@link
   * GroupLanes}): a group waiting on the store then holds one of its threads, not one per request.
   * Requests that span groups use {@link #groupRequests()} itself.
   */
  public Executor groupRequests(String groupId) {
    GroupLanes lanes = groupLanes;
    return lanes == null ? groupRequests() : lanes.lane(groupId);
  }

  /**
   * Runs a group request: in the lane of {@code groupId} (a request spanning groups: null, on
   * {@link #groupRequests()} itself), answered {@code late} if not done within the groups'
   * offsets.commit.timeout.ms ({@link BoundedGroupRequest}).
   *
   * @param what the request, for the log line of a late answer
   */
  public <T> CompletableFuture<T> groupRequest(
      String groupId, String what, Callable<T> work, Supplier<T> late) {
    GroupCoordinator g = groups;
    long boundMs =
        g == null ? GroupConfig.defaults().commitTimeoutMs() : g.config().commitTimeoutMs();
    return BoundedGroupRequest.run(groupRequests(groupId), boundMs, what, groupId, work, late);
  }

  /** Sets the executor of {@link #groupRequests()}, when the broker starts. */
  public void groupRequests(Executor executor) {
    this.groupRequests = executor;
    this.groupLanes = new GroupLanes(executor);
  }

  /**
   * Runs Metadata requests that create no topic: they read memory only, and have threads of their
   * own so that store writes waiting on a slow filer (topic creation, producer ids) never hold up
   * the requests every client needs first. The blocking executor until {@link
   * #metadataReads(Executor)} sets one.
   */
  public Executor metadataReads() {
    Executor e = metadataReads;
    return e == null ? blocking : e;
  }

  /** Sets the executor of {@link #metadataReads()}, when the broker starts. */
  public void metadataReads(Executor executor) {
    this.metadataReads = executor;
  }

  /** The group coordinator. */
  public GroupCoordinator groups() {
    return groups;
  }

  /** Sets the group coordinator once, when the broker starts. */
  public void groups(GroupCoordinator coordinator) {
    this.groups = coordinator;
  }

  public KelpMetrics metrics() {
    return metrics;
  }

  public long nowMs() {
    return clock.getAsLong();
  }

  public Path dataDir() {
    return config.dataDir().toAbsolutePath().normalize();
  }

  /** Whether the topics live in the local store's data directory (rather than in SeaweedFS). */
  public boolean localStore() {
    return config.store().equals("local");
  }

  /**
   * Where the topics live, as DescribeLogDirs names it: the local store's data directory, or the
   * filer and the namespace's directory on it ({@code seaweedfs:HOST:PORT/topics/<namespace>}).
   */
  public String logDir() {
    return localStore()
        ? dataDir().toString()
        : "seaweedfs:" + config.filer() + "/topics/" + config.namespace();
  }
}
