package io.kelp.gateway.server;

import static io.kelp.gateway.server.BrokerConfig.ADVERTISE;
import static io.kelp.gateway.server.BrokerConfig.AUTO_CREATE_TOPICS;
import static io.kelp.gateway.server.BrokerConfig.BROKER_ID;
import static io.kelp.gateway.server.BrokerConfig.CLEANER_BACKOFF_MS;
import static io.kelp.gateway.server.BrokerConfig.CLEANER_DEDUPE_BUFFER_BYTES;
import static io.kelp.gateway.server.BrokerConfig.CONNECTION_MAX_INFLIGHT_BYTES;
import static io.kelp.gateway.server.BrokerConfig.CONNECTION_MAX_INFLIGHT_REQUESTS;
import static io.kelp.gateway.server.BrokerConfig.DATA_DIR;
import static io.kelp.gateway.server.BrokerConfig.DEFAULT_PARTITIONS;
import static io.kelp.gateway.server.BrokerConfig.FILER;
import static io.kelp.gateway.server.BrokerConfig.FLUSH_GATHER_MS;
import static io.kelp.gateway.server.BrokerConfig.FLUSH_LAZY_MS;
import static io.kelp.gateway.server.BrokerConfig.FLUSH_MAX_BYTES;
import static io.kelp.gateway.server.BrokerConfig.FLUSH_MAX_DELAY_MS;
import static io.kelp.gateway.server.BrokerConfig.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS;
import static io.kelp.gateway.server.BrokerConfig.GROUP_CONSUMER_SESSION_TIMEOUT_MS;
import static io.kelp.gateway.server.BrokerConfig.GROUP_INITIAL_REBALANCE_DELAY_MS;
import static io.kelp.gateway.server.BrokerConfig.GROUP_MAX_SESSION_TIMEOUT_MS;
import static io.kelp.gateway.server.BrokerConfig.GROUP_MAX_SIZE;
import static io.kelp.gateway.server.BrokerConfig.GROUP_MIN_SESSION_TIMEOUT_MS;
import static io.kelp.gateway.server.BrokerConfig.IO_THREADS;
import static io.kelp.gateway.server.BrokerConfig.LISTEN;
import static io.kelp.gateway.server.BrokerConfig.MAX_UNCOMPRESSED_BATCH_BYTES;
import static io.kelp.gateway.server.BrokerConfig.MEMORY_MAX_BYTES;
import static io.kelp.gateway.server.BrokerConfig.METRICS_LISTEN;
import static io.kelp.gateway.server.BrokerConfig.NAMESPACE;
import static io.kelp.gateway.server.BrokerConfig.NETWORK_THREADS;
import static io.kelp.gateway.server.BrokerConfig.OFFSETS_COMMIT_TIMEOUT_MS;
import static io.kelp.gateway.server.BrokerConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS;
import static io.kelp.gateway.server.BrokerConfig.OFFSETS_RETENTION_MINUTES;
import static io.kelp.gateway.server.BrokerConfig.PRODUCER_ID_EXPIRATION_MS;
import static io.kelp.gateway.server.BrokerConfig.REQUEST_THREADS;
import static io.kelp.gateway.server.BrokerConfig.RETENTION_CHECK_INTERVAL_MS;
import static io.kelp.gateway.server.BrokerConfig.SEAWEED_COLLECTION;
import static io.kelp.gateway.server.BrokerConfig.SEAWEED_FSYNC;
import static io.kelp.gateway.server.BrokerConfig.SEAWEED_MAX_APPENDS_PER_OBJECT;
import static io.kelp.gateway.server.BrokerConfig.SEAWEED_READ_CACHE_BYTES;
import static io.kelp.gateway.server.BrokerConfig.SEAWEED_REPLICATION;
import static io.kelp.gateway.server.BrokerConfig.SOCKET_REQUEST_MAX_BYTES;
import static io.kelp.gateway.server.BrokerConfig.STORE;
import static io.kelp.gateway.server.BrokerConfig.TAIL_CACHE_BYTES;

import io.kelp.engine.log.EngineConfig;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.seaweed.SeaweedObjectStore;
import java.util.List;
import java.util.Locale;

/**
 * The catalogue of {@code kelp serve}'s settings: for each key, the placeholder and text that help
 * shows and the default value. {@link BrokerConfig} resolves and checks the values.
 */
public final class BrokerSettings {
  /** One setting: its key, the placeholder shown in help, its default and what it does. */
  public record Setting(String key, String label, String defaultValue, String description) {
    public String flag() {
      return "--" + key.replace('.', '-');
    }

    public String envVar() {
      return "KELP_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }
  }

  private static final EngineConfig ENGINE = EngineConfig.defaults();
  private static final GroupConfig GROUPS = GroupConfig.defaults();

  /** The settings, in the order help lists them. */
  static final List<Setting> ALL =
      List.of(
          new Setting(LISTEN, "HOST:PORT", "127.0.0.1:9092", "Address to accept Kafka clients on."),
          new Setting(
              ADVERTISE,
              "HOST:PORT",
              "",
              "Address given to clients in metadata (default: listen)."),
          new Setting(DATA_DIR, "DIR", "./data", "Directory of the local store."),
          new Setting(BROKER_ID, "N", "0", "This broker's id."),
          new Setting(
              METRICS_LISTEN,
              "HOST:PORT",
              "127.0.0.1:9644",
              "Address of the HTTP endpoint with /metrics and /health; 'off' disables it."),
          new Setting(
              AUTO_CREATE_TOPICS,
              "true|false",
              "true",
              "Create unknown topics when a client asks for their metadata."),
          new Setting(
              DEFAULT_PARTITIONS,
              "N",
              "1",
              "Partitions of auto-created topics and of topics created with -1."),
          new Setting(
              STORE,
              "local|seaweedfs",
              "local",
              "Where data lives: 'local' is the embedded store, 'seaweedfs' a SeaweedFS filer."),
          new Setting(
              FILER,
              "HOST:PORT[.GRPC]",
              "",
              "The SeaweedFS filer for --store seaweedfs: its HTTP port, and its gRPC port"
                  + " when that is not the HTTP port + 10000."),
          new Setting(
              SEAWEED_REPLICATION,
              "XYZ",
              "",
              "SeaweedFS replication of stored chunks, e.g. 001 (default: the filer's)."),
          new Setting(
              SEAWEED_COLLECTION,
              "NAME",
              "",
              "SeaweedFS collection of stored chunks (default: the filer's)."),
          new Setting(
              SEAWEED_READ_CACHE_BYTES,
              "BYTES",
              Long.toString(SeaweedObjectStore.DEFAULT_READ_CACHE_BYTES),
              "Chunks read from SeaweedFS kept in memory for the next reads (0: none)."),
          new Setting(
              SEAWEED_MAX_APPENDS_PER_OBJECT,
              "N",
              Long.toString(SeaweedObjectStore.DEFAULT_MAX_APPENDS_PER_OBJECT),
              "Appends a segment takes on SeaweedFS before the next segment starts."),
          new Setting(
              SEAWEED_FSYNC,
              "true|false",
              Boolean.toString(SeaweedObjectStore.DEFAULT_FSYNC),
              "Whether volume servers fsync each chunk before Kelp acknowledges it. Without it an"
                  + " acknowledged chunk survives a crash of any process, as Kafka's log does"
                  + " without flush settings; against power loss use replication, or fsync with a"
                  + " filer store that syncs its own writes (the default leveldb store does not)."),
          new Setting(NAMESPACE, "NAME", "kafka", "Store namespace that holds the Kafka topics."),
          new Setting(
              SOCKET_REQUEST_MAX_BYTES,
              "BYTES",
              "104857600",
              "Largest request frame accepted; a larger one closes the connection."),
          new Setting(
              NETWORK_THREADS,
              "N",
              Integer.toString(Runtime.getRuntime().availableProcessors()),
              "Threads serving connections."),
          new Setting(
              REQUEST_THREADS,
              "N",
              "8",
              "Threads for work that may block (admin APIs, producer ids, Metadata that creates a"
                  + " topic), and as many again for each of: the group APIs, other Metadata, the"
                  + " store reads of fetches."),
          new Setting(
              CONNECTION_MAX_INFLIGHT_REQUESTS,
              "N",
              "1000",
              "Requests in progress per connection before it stops being read."),
          new Setting(
              CONNECTION_MAX_INFLIGHT_BYTES,
              "BYTES",
              "67108864",
              "Request bytes in progress per connection before it stops being read."),
          new Setting(
              MAX_UNCOMPRESSED_BATCH_BYTES,
              "BYTES",
              "67108864",
              "Most bytes a produced compressed batch may inflate to when it is validated."),
          new Setting(
              FLUSH_MAX_DELAY_MS,
              "MS",
              Long.toString(ENGINE.flushMaxDelayMs()),
              "Longest wait before appended data is flushed (0: flush continuously)."),
          new Setting(
              FLUSH_MAX_BYTES,
              "BYTES",
              Long.toString(ENGINE.flushMaxBytes()),
              "Start a flush early once this many bytes are pending."),
          new Setting(
              FLUSH_GATHER_MS,
              "MS",
              BrokerConfig.AUTO,
              "Longest wait of a partition's flush for as many appends as its producers lately"
                  + " kept in flight, so that they go to the store in one write (0: no wait)."
                  + " auto: 4 on SeaweedFS, 0 on the local store."),
          new Setting(
              FLUSH_LAZY_MS,
              "MS",
              BrokerConfig.AUTO,
              "Longest wait before flushing appends that nothing waits for (acks=0 and acks=1,"
                  + " while no acks=all produce or fetch waits on the partition), so that they go"
                  + " to the store in fewer, larger writes; a crash can lose that much more of them"
                  + " (0: no wait). auto: 10 on SeaweedFS, 0 on the local store."),
          new Setting(
              MEMORY_MAX_BYTES,
              "BYTES",
              Long.toString(ENGINE.memoryMaxBytes()),
              "Unflushed bytes past which producers are held back."),
          new Setting(
              TAIL_CACHE_BYTES,
              "BYTES",
              BrokerConfig.AUTO,
              "Recently written bytes kept in memory for consumers. auto: on SeaweedFS an"
                  + " eighth of the JVM's direct memory limit, at least 256 MiB but at most a"
                  + " quarter of the limit; on the local store (whose files the OS page cache"
                  + " serves) 256 MiB, at most a quarter of the limit."),
          new Setting(
              IO_THREADS,
              "N",
              Integer.toString(ENGINE.ioThreads()),
              "Threads that write to and read from the store."),
          new Setting(
              RETENTION_CHECK_INTERVAL_MS,
              "MS",
              Long.toString(ENGINE.retentionCheckIntervalMs()),
              "How often retention deletes expired segments."),
          new Setting(
              PRODUCER_ID_EXPIRATION_MS,
              "MS",
              Long.toString(ENGINE.producerIdExpirationMs()),
              "How long an idle idempotent producer's state is kept."),
          new Setting(
              CLEANER_BACKOFF_MS,
              "MS",
              Long.toString(ENGINE.cleanerBackoffMs()),
              "How often compaction looks for work."),
          new Setting(
              CLEANER_DEDUPE_BUFFER_BYTES,
              "BYTES",
              Long.toString(ENGINE.cleanerDedupeBufferBytes()),
              "Memory compaction's key map may use."),
          new Setting(
              GROUP_INITIAL_REBALANCE_DELAY_MS,
              "MS",
              Long.toString(GROUPS.initialRebalanceDelayMs()),
              "How long the first rebalance of an empty group waits for more members."),
          new Setting(
              GROUP_MIN_SESSION_TIMEOUT_MS,
              "MS",
              Integer.toString(GROUPS.minSessionTimeoutMs()),
              "Shortest session timeout a classic group member may ask for."),
          new Setting(
              GROUP_MAX_SESSION_TIMEOUT_MS,
              "MS",
              Integer.toString(GROUPS.maxSessionTimeoutMs()),
              "Longest session timeout a classic group member may ask for."),
          new Setting(
              GROUP_MAX_SIZE,
              "N",
              Integer.toString(GROUPS.maxGroupSize()),
              "Most members per group."),
          new Setting(
              OFFSETS_RETENTION_MINUTES,
              "MINUTES",
              Long.toString(GROUPS.offsetsRetentionMs() / 60_000),
              "How long committed offsets of an empty group are kept."),
          new Setting(
              OFFSETS_RETENTION_CHECK_INTERVAL_MS,
              "MS",
              Long.toString(GROUPS.offsetsRetentionCheckIntervalMs()),
              "How often expired offsets are removed."),
          new Setting(
              OFFSETS_COMMIT_TIMEOUT_MS,
              "MS",
              Long.toString(GROUPS.commitTimeoutMs()),
              "How long a group request (an offset commit, a heartbeat, a join) may wait on its"
                  + " group's writes to the store before the client is answered"
                  + " COORDINATOR_NOT_AVAILABLE, which it retries."),
          new Setting(
              GROUP_CONSUMER_SESSION_TIMEOUT_MS,
              "MS",
              Integer.toString(GROUPS.consumerSessionTimeoutMs()),
              "Session timeout of members of consumer-protocol (KIP-848) groups."),
          new Setting(
              GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS,
              "MS",
              Integer.toString(GROUPS.consumerHeartbeatIntervalMs()),
              "Heartbeat interval of members of consumer-protocol (KIP-848) groups."));

  private BrokerSettings() {}
}
