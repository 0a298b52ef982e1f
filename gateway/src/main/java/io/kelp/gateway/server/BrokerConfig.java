package io.kelp.gateway.server;

import io.kelp.engine.log.EngineConfig;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.server.BrokerSettings.Setting;
import io.kelp.seaweed.FilerAddress;
import io.netty.util.internal.PlatformDependent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The resolved settings of {@code kelp serve} (listed, with help text and defaults, in {@link
 * BrokerSettings}), checked and typed. Each has a key (used in the config file), a command-line
 * flag ({@code --} and the key with dots as dashes) and an environment variable ({@code KELP_} and
 * the key upper-cased, dots and dashes as underscores). A value given as a flag wins over the
 * environment, which wins over the file, which wins over the default.
 */
public final class BrokerConfig {
  public static final String LISTEN = "listen";
  public static final String ADVERTISE = "advertise";
  public static final String DATA_DIR = "data.dir";
  public static final String BROKER_ID = "broker.id";
  public static final String METRICS_LISTEN = "metrics.listen";
  public static final String AUTO_CREATE_TOPICS = "auto.create.topics";
  public static final String DEFAULT_PARTITIONS = "default.partitions";
  public static final String STORE = "store";
  public static final String NAMESPACE = "namespace";
  public static final String FILER = "filer";
  public static final String SEAWEED_REPLICATION = "seaweed.replication";
  public static final String SEAWEED_COLLECTION = "seaweed.collection";
  public static final String SEAWEED_READ_CACHE_BYTES = "seaweed.read.cache.bytes";
  public static final String SEAWEED_MAX_APPENDS_PER_OBJECT = "seaweed.max.appends.per.object";
  public static final String SEAWEED_FSYNC = "seaweed.fsync";
  public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";
  public static final String NETWORK_THREADS = "network.threads";
  public static final String REQUEST_THREADS = "request.threads";
  public static final String CONNECTION_MAX_INFLIGHT_REQUESTS = "connection.max.inflight.requests";
  public static final String CONNECTION_MAX_INFLIGHT_BYTES = "connection.max.inflight.bytes";
  public static final String MAX_UNCOMPRESSED_BATCH_BYTES = "max.uncompressed.batch.bytes";
  public static final String FLUSH_MAX_DELAY_MS = "flush.max.delay.ms";
  public static final String FLUSH_MAX_BYTES = "flush.max.bytes";
  public static final String FLUSH_GATHER_MS = "flush.gather.ms";
  public static final String FLUSH_LAZY_MS = "flush.lazy.ms";
  public static final String MEMORY_MAX_BYTES = "memory.max.bytes";
  public static final String TAIL_CACHE_BYTES = "tail.cache.bytes";
  public static final String IO_THREADS = "io.threads";
  public static final String RETENTION_CHECK_INTERVAL_MS = "retention.check.interval.ms";
  public static final String PRODUCER_ID_EXPIRATION_MS = "producer.id.expiration.ms";
  public static final String CLEANER_BACKOFF_MS = "cleaner.backoff.ms";
  public static final String CLEANER_DEDUPE_BUFFER_BYTES = "cleaner.dedupe.buffer.bytes";

  public static final String GROUP_INITIAL_REBALANCE_DELAY_MS = "group.initial.rebalance.delay.ms";
  public static final String GROUP_MIN_SESSION_TIMEOUT_MS = "group.min.session.timeout.ms";
  public static final String GROUP_MAX_SESSION_TIMEOUT_MS = "group.max.session.timeout.ms";
  public static final String GROUP_MAX_SIZE = "group.max.size";
  public static final String OFFSETS_RETENTION_MINUTES = "offsets.retention.minutes";
  public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS =
      "offsets.retention.check.interval.ms";
  public static final String OFFSETS_COMMIT_TIMEOUT_MS = "offsets.commit.timeout.ms";
  public static final String GROUP_CONSUMER_SESSION_TIMEOUT_MS =
      "group.consumer.session.timeout.ms";
  public static final String GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS =
      "group.consumer.heartbeat.interval.ms";

  private static final GroupConfig GROUPS = GroupConfig.defaults();

  /**
   * The value of {@link #TAIL_CACHE_BYTES} that sizes the cache by the JVM's memory, and of {@link
   * #FLUSH_GATHER_MS} and {@link #FLUSH_LAZY_MS} that picks the wait by the store.
   */
  public static final String AUTO = "auto";

  /**
   * What {@code flush.gather.ms=auto} gives on SeaweedFS, where each store write costs the broker
   * and SeaweedFS a filer transaction and an upload: long enough for a producer under load to send
   * the requests that the previous write's acknowledgements let go, which on a loaded machine often
   * took more than 2 ms (measured in the README). On the local store, whose writes are cheap, auto
   * gives 0.
   */
  static final long SEAWEED_FLUSH_GATHER_MS = 4;

  /**
   * What {@code flush.lazy.ms=auto} gives on SeaweedFS: acks=0 and acks=1 data that nothing waits
   * for goes to the store in writes of up to this many milliseconds of it, which at six partitions
   * and acks=1 took weed's CPU for 1,000,000 records from 3.2-3.6 s to 1.6-2.1 s (README). It is
   * also how much more of such data a crash of the broker can lose, as with any unflushed append.
   * On the local store auto gives 0.
   */
  static final long SEAWEED_FLUSH_LAZY_MS = 10;

  /**
   * The tail cache {@code auto} gives on the local store, and the least it gives on SeaweedFS (both
   * within a quarter of the JVM's direct memory limit).
   */
  static final long BASE_TAIL_CACHE_BYTES = 256L << 20;

  /** The settings, in the order help lists them. */
  public static final List<Setting> SETTINGS = BrokerSettings.ALL;

  private static final Map<String, Setting> BY_KEY = index();

  private static Map<String, Setting> index() {
    Map<String, Setting> m = new LinkedHashMap<>();
    for (Setting s : SETTINGS) {
      m.put(s.key(), s);
    }
    return Collections.unmodifiableMap(m);
  }

  private final Map<String, String> values;
  private final Map<String, String> sources;

  private BrokerConfig(Map<String, String> values, Map<String, String> sources) {
    this.values = values;
    this.sources = sources;
    validate();
  }

  /**
   * Resolves every setting from its sources.
   *
   * @param flags values given on the command line, by key
   * @param env the process environment
   * @param file the config file's properties, or empty
   * @throws IllegalArgumentException naming the setting and where its bad value came from
   */
  public static BrokerConfig resolve(
      Map<String, String> flags, Map<String, String> env, Properties file) {
    for (String name : file.stringPropertyNames()) {
      if (!BY_KEY.containsKey(name)) {
        throw new IllegalArgumentException("unknown setting '" + name + "' in the config file");
      }
    }
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> sources = new LinkedHashMap<>();
    for (Setting s : SETTINGS) {
      String value = s.defaultValue();
      String source = "default";
      if (file.getProperty(s.key()) != null) {
        value = file.getProperty(s.key()).trim();
        source = "config file key " + s.key();
      }
      if (env.get(s.envVar()) != null) {
        value = env.get(s.envVar()).trim();
        source = "environment variable " + s.envVar();
      }
      if (flags.get(s.key()) != null) {
        value = flags.get(s.key()).trim();
        source = "flag " + s.flag();
      }
      values.put(s.key(), value);
      sources.put(s.key(), source);
    }
    return new BrokerConfig(values, sources);
  }

  /** Defaults with some settings overridden, for tests and embedding. */
  public static BrokerConfig of(Map<String, String> overrides) {
    return resolve(overrides, Map.of(), new Properties());
  }

  private void validate() {
    listen();
    advertiseOrNull();
    brokerId();
    metricsListen();
    autoCreateTopics();
    seaweedFsync();
    List<String> problems = new ArrayList<>();
    if (defaultPartitions() < 1) {
      problems.add(DEFAULT_PARTITIONS);
    }
    if (!store().equals("local") && !store().equals("seaweedfs")) {
      throw bad(STORE, "must be local or seaweedfs");
    }
    if (store().equals("seaweedfs")) {
      filer();
    }
    if (seaweedReadCacheBytes() < 0) {
      problems.add(SEAWEED_READ_CACHE_BYTES);
    }
    if (seaweedMaxAppendsPerObject() < 1) {
      problems.add(SEAWEED_MAX_APPENDS_PER_OBJECT);
    }
    if (namespace().isEmpty() || namespace().contains("/")) {
      problems.add(NAMESPACE);
    }
    if (socketRequestMaxBytes() < 1) {
      problems.add(SOCKET_REQUEST_MAX_BYTES);
    }
    if (networkThreads() < 1) {
      problems.add(NETWORK_THREADS);
    }
    if (requestThreads() < 1) {
      problems.add(REQUEST_THREADS);
    }
    if (connectionMaxInflightRequests() < 1) {
      problems.add(CONNECTION_MAX_INFLIGHT_REQUESTS);
    }
    if (connectionMaxInflightBytes() < 1) {
      problems.add(CONNECTION_MAX_INFLIGHT_BYTES);
    }
    if (maxUncompressedBatchBytes() < 1) {
      problems.add(MAX_UNCOMPRESSED_BATCH_BYTES);
    }
    EngineConfig e = engineConfig();
    if (e.flushMaxDelayMs() < 0) {
      problems.add(FLUSH_MAX_DELAY_MS);
    }
    if (e.flushMaxBytes() < 1) {
      problems.add(FLUSH_MAX_BYTES);
    }
    if (e.flushGatherMs() < 0) {
      problems.add(FLUSH_GATHER_MS);
    }
    if (e.flushLazyMs() < 0) {
      problems.add(FLUSH_LAZY_MS);
    }
    if (e.memoryMaxBytes() < 1) {
      problems.add(MEMORY_MAX_BYTES);
    }
    if (e.tailCacheBytes() < 0) {
      problems.add(TAIL_CACHE_BYTES);
    }
    if (e.ioThreads() < 1) {
      problems.add(IO_THREADS);
    }
    if (e.retentionCheckIntervalMs() < 1) {
      problems.add(RETENTION_CHECK_INTERVAL_MS);
    }
    if (e.producerIdExpirationMs() < 1) {
      problems.add(PRODUCER_ID_EXPIRATION_MS);
    }
    if (e.cleanerBackoffMs() < 1) {
      problems.add(CLEANER_BACKOFF_MS);
    }
    if (e.cleanerDedupeBufferBytes() < 1) {
      problems.add(CLEANER_DEDUPE_BUFFER_BYTES);
    }
    GroupConfig g = groupConfig();
    if (g.initialRebalanceDelayMs() < 0) {
      problems.add(GROUP_INITIAL_REBALANCE_DELAY_MS);
    }
    if (g.minSessionTimeoutMs() < 1) {
      problems.add(GROUP_MIN_SESSION_TIMEOUT_MS);
    }
    if (g.maxSessionTimeoutMs() < g.minSessionTimeoutMs()) {
      problems.add(GROUP_MAX_SESSION_TIMEOUT_MS);
    }
    if (g.maxGroupSize() < 1) {
      problems.add(GROUP_MAX_SIZE);
    }
    if (g.offsetsRetentionMs() < 60_000) {
      problems.add(OFFSETS_RETENTION_MINUTES);
    }
    if (g.offsetsRetentionCheckIntervalMs() < 1) {
      problems.add(OFFSETS_RETENTION_CHECK_INTERVAL_MS);
    }
    if (g.commitTimeoutMs() < 1) {
      problems.add(OFFSETS_COMMIT_TIMEOUT_MS);
    }
    if (g.consumerSessionTimeoutMs() < 1) {
      problems.add(GROUP_CONSUMER_SESSION_TIMEOUT_MS);
    }
    if (g.consumerHeartbeatIntervalMs() < 1
        || g.consumerHeartbeatIntervalMs() >= g.consumerSessionTimeoutMs()) {
      problems.add(GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS);
    }
    if (!problems.isEmpty()) {
      throw bad(problems.get(0), "out of range");
    }
  }

  private IllegalArgumentException bad(String key, String why) {
    return new IllegalArgumentException(
        "bad value '"
            + values.get(key)
            + "' for "
            + key
            + " (from "
            + sources.get(key)
            + "): "
            + why);
  }

  String string(String key) {
    return values.get(key);
  }

  private boolean booleanValue(String key) {
    String v = string(key).toLowerCase(Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      throw bad(key, "must be true or false");
    }
    return v.equals("true");
  }

  private long longValue(String key) {
    try {
      return Long.parseLong(values.get(key));
    } catch (NumberFormatException e) {
      throw bad(key, "not a whole number");
    }
  }

  private int intValue(String key) {
    long v = longValue(key);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw bad(key, "too large");
    }
    return (int) v;
  }

  private HostPort hostPort(String key) {
    try {
      return HostPort.parse(values.get(key));
    } catch (IllegalArgumentException e) {
      throw bad(key, e.getMessage());
    }
  }

  public HostPort listen() {
    return hostPort(LISTEN);
  }

  /** The advertised address, or null to advertise the address actually listened on. */
  public HostPort advertiseOrNull() {
    return string(ADVERTISE).isEmpty() ? null : hostPort(ADVERTISE);
  }

  public Path dataDir() {
    return Path.of(string(DATA_DIR));
  }

  public int brokerId() {
    int id = intValue(BROKER_ID);
    if (id < 0) {
      throw bad(BROKER_ID, "must be 0 or more");
    }
    return id;
  }

  /** The metrics endpoint, or null when it is off. */
  public HostPort metricsListen() {
    String v = string(METRICS_LISTEN);
    return v.isEmpty() || v.equalsIgnoreCase("off") ? null : hostPort(METRICS_LISTEN);
  }

  public boolean autoCreateTopics() {
    return booleanValue(AUTO_CREATE_TOPICS);
  }

  public int defaultPartitions() {
    return intValue(DEFAULT_PARTITIONS);
  }

  public String store() {
    return string(STORE);
  }

  public String namespace() {
    return string(NAMESPACE);
  }

  /** The SeaweedFS filer; required when the store is seaweedfs. */
  public FilerAddress filer() {
    if (string(FILER).isEmpty()) {
      throw bad(FILER, "is required with --store seaweedfs");
    }
    try {
      return FilerAddress.parse(string(FILER));
    } catch (IllegalArgumentException e) {
      throw bad(FILER, e.getMessage());
    }
  }

  public String seaweedReplication() {
    return string(SEAWEED_REPLICATION);
  }

  public String seaweedCollection() {
    return string(SEAWEED_COLLECTION);
  }

  public long seaweedReadCacheBytes() {
    return longValue(SEAWEED_READ_CACHE_BYTES);
  }

  public boolean seaweedFsync() {
    return booleanValue(SEAWEED_FSYNC);
  }

  public long seaweedMaxAppendsPerObject() {
    return longValue(SEAWEED_MAX_APPENDS_PER_OBJECT);
  }

  public int socketRequestMaxBytes() {
    return intValue(SOCKET_REQUEST_MAX_BYTES);
  }

  public int networkThreads() {
    return intValue(NETWORK_THREADS);
  }

  public int requestThreads() {
    return intValue(REQUEST_THREADS);
  }

  public int connectionMaxInflightRequests() {
    return intValue(CONNECTION_MAX_INFLIGHT_REQUESTS);
  }

  public long connectionMaxInflightBytes() {
    return longValue(CONNECTION_MAX_INFLIGHT_BYTES);
  }

  public int maxUncompressedBatchBytes() {
    return intValue(MAX_UNCOMPRESSED_BATCH_BYTES);
  }

  /**
   * The value {@code tail.cache.bytes} names, {@code auto} worked out ({@link
   * #autoTailCacheBytes}).
   */
  public long tailCacheBytes() {
    if (string(TAIL_CACHE_BYTES).trim().equalsIgnoreCase(AUTO)) {
      return autoTailCacheBytes(store(), PlatformDependent.maxDirectMemory());
    }
    try {
      return Long.parseLong(string(TAIL_CACHE_BYTES).trim());
    } catch (NumberFormatException e) {
      throw bad(TAIL_CACHE_BYTES, "neither a whole number nor " + AUTO);
    }
  }

  /**
   * What {@code tail.cache.bytes=auto} means. On SeaweedFS, an eighth of the JVM's direct memory
   * limit (itself the heap limit unless -XX:MaxDirectMemorySize says otherwise), but at least 256
   * MiB and never more than a quarter of that limit: the tail cache is then what the page cache is
   * to Kafka, and consumers reading recent data get it from memory rather than from the volume
   * servers. An eighth rather than more, because filling a larger cache costs the broker CPU as the
   * buffer pool takes new memory from the system (measured in the README). On the local store the
   * operating system's page cache already serves reads of segment files, so the cache keeps at most
   * 256 MiB (and a quarter of the limit).
   */
  static long autoTailCacheBytes(String store, long maxDirectMemory) {
    long limit = Math.max(0, maxDirectMemory);
    long quarter = limit / 4;
    if (store.equals("seaweedfs")) {
      return Math.min(quarter, Math.max(BASE_TAIL_CACHE_BYTES, limit / 8));
    }
    return Math.min(BASE_TAIL_CACHE_BYTES, quarter);
  }

  /** The value {@code flush.gather.ms} names, {@code auto} worked out by the store. */
  public long flushGatherMs() {
    return msOrAuto(FLUSH_GATHER_MS, SEAWEED_FLUSH_GATHER_MS);
  }

  /** The value {@code flush.lazy.ms} names, {@code auto} worked out by the store. */
  public long flushLazyMs() {
    return msOrAuto(FLUSH_LAZY_MS, SEAWEED_FLUSH_LAZY_MS);
  }

  /** A wait in milliseconds, or {@code auto}: {@code onSeaweedfs} there, 0 on the local store. */
  private long msOrAuto(String key, long onSeaweedfs) {
    String value = string(key).trim();
    if (value.equalsIgnoreCase(AUTO)) {
      return store().equals("seaweedfs") ? onSeaweedfs : 0;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw bad(key, "neither a whole number nor " + AUTO);
    }
  }

  public EngineConfig engineConfig() {
    return new EngineConfig(
        longValue(FLUSH_MAX_DELAY_MS),
        longValue(FLUSH_MAX_BYTES),
        longValue(MEMORY_MAX_BYTES),
        tailCacheBytes(),
        intValue(IO_THREADS),
        longValue(RETENTION_CHECK_INTERVAL_MS),
        longValue(PRODUCER_ID_EXPIRATION_MS),
        longValue(CLEANER_BACKOFF_MS),
        longValue(CLEANER_DEDUPE_BUFFER_BYTES),
        flushGatherMs(),
        flushLazyMs());
  }

  /** The group coordinator's settings. */
  public GroupConfig groupConfig() {
    return new GroupConfig(
        longValue(GROUP_INITIAL_REBALANCE_DELAY_MS),
        intValue(GROUP_MIN_SESSION_TIMEOUT_MS),
        intValue(GROUP_MAX_SESSION_TIMEOUT_MS),
        intValue(GROUP_MAX_SIZE),
        Math.min(longValue(OFFSETS_RETENTION_MINUTES), Long.MAX_VALUE / 60_000L) * 60_000L,
        longValue(OFFSETS_RETENTION_CHECK_INTERVAL_MS),
        intValue(GROUP_CONSUMER_SESSION_TIMEOUT_MS),
        intValue(GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS),
        GROUPS.consumerAssignors(),
        longValue(OFFSETS_COMMIT_TIMEOUT_MS));
  }

  /** Every setting's resolved value, by key. */
  public Map<String, String> values() {
    return Collections.unmodifiableMap(values);
  }

  /** Where a setting's value came from: a flag, the environment, the file or the default. */
  public String source(String key) {
    return sources.get(key);
  }
}
