package io.kelp.gateway.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.internal.PlatformDependent;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class BrokerConfigTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    BrokerConfig c = BrokerConfig.of(Map.of());
    assertEquals(new HostPort("127.0.0.1", 9092), c.listen());
    assertNull(c.advertiseOrNull(), "advertise defaults to the listen address");
    assertEquals("./data", c.dataDir().toString());
    assertEquals(0, c.brokerId());
    assertEquals(new HostPort("127.0.0.1", 9644), c.metricsListen());
    assertTrue(c.autoCreateTopics());
    assertEquals(1, c.defaultPartitions());
    assertEquals(104857600, c.socketRequestMaxBytes());
    assertEquals("local", c.store());
    assertFalse(c.seaweedFsync(), "SeaweedFS's own default, and Kafka's (no flush settings)");
    assertEquals(32, c.seaweedMaxAppendsPerObject());
  }

  @Test
  void theTailCacheIsSizedByTheJvmsMemoryUnlessSet() {
    long gib = 1L << 30;
    assertEquals(768L << 20, BrokerConfig.autoTailCacheBytes("seaweedfs", 6 * gib));
    assertEquals(256L << 20, BrokerConfig.autoTailCacheBytes("seaweedfs", gib), "at least 256 MiB");
    assertEquals(128L << 20, BrokerConfig.autoTailCacheBytes("seaweedfs", 512L << 20), "a quarter");
    assertEquals(256L << 20, BrokerConfig.autoTailCacheBytes("local", 8 * gib), "page cache");
    assertEquals(128L << 20, BrokerConfig.autoTailCacheBytes("local", 512L << 20));

    BrokerConfig byDefault = BrokerConfig.of(Map.of());
    assertEquals("auto", byDefault.string("tail.cache.bytes"));
    assertEquals(
        BrokerConfig.autoTailCacheBytes("local", PlatformDependent.maxDirectMemory()),
        byDefault.engineConfig().tailCacheBytes());
    BrokerConfig onSeaweed =
        BrokerConfig.of(Map.of("store", "seaweedfs", "filer", "127.0.0.1:8888"));
    assertEquals(
        BrokerConfig.autoTailCacheBytes("seaweedfs", PlatformDependent.maxDirectMemory()),
        onSeaweed.engineConfig().tailCacheBytes());

    assertEquals(
        1000, BrokerConfig.of(Map.of("tail.cache.bytes", "1000")).engineConfig().tailCacheBytes());
    assertEquals(0, BrokerConfig.of(Map.of("tail.cache.bytes", "0")).tailCacheBytes());
    IllegalArgumentException bad =
        assertThrows(
            IllegalArgumentException.class,
            () -> BrokerConfig.of(Map.of("tail.cache.bytes", "lots")));
    assertTrue(bad.getMessage().contains("tail.cache.bytes"), bad.getMessage());
    assertTrue(bad.getMessage().contains("auto"), bad.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("tail.cache.bytes", "-1")));
  }

  @Test
  void flushesGatherAppendsOnSeaweedfsUnlessSet() {
    assertEquals("auto", BrokerConfig.of(Map.of()).string("flush.gather.ms"));
    assertEquals(0, BrokerConfig.of(Map.of()).engineConfig().flushGatherMs(), "local store");
    BrokerConfig onSeaweed =
        BrokerConfig.of(Map.of("store", "seaweedfs", "filer", "127.0.0.1:8888"));
    assertEquals(4, onSeaweed.engineConfig().flushGatherMs());
    assertEquals(
        0,
        BrokerConfig.of(
                Map.of("store", "seaweedfs", "filer", "127.0.0.1:8888", "flush.gather.ms", "0"))
            .engineConfig()
            .flushGatherMs());
    assertEquals(3, BrokerConfig.of(Map.of("flush.gather.ms", "3")).flushGatherMs());
    IllegalArgumentException bad =
        assertThrows(
            IllegalArgumentException.class,
            () -> BrokerConfig.of(Map.of("flush.gather.ms", "soon")));
    assertTrue(bad.getMessage().contains("flush.gather.ms"), bad.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("flush.gather.ms", "-1")));
  }

  @Test
  void flushesUnawaitedAppendsLazilyOnSeaweedfsUnlessSet() {
    assertEquals("auto", BrokerConfig.of(Map.of()).string("flush.lazy.ms"));
    assertEquals(0, BrokerConfig.of(Map.of()).engineConfig().flushLazyMs(), "local store");
    BrokerConfig onSeaweed =
        BrokerConfig.of(Map.of("store", "seaweedfs", "filer", "127.0.0.1:8888"));
    assertEquals(10, onSeaweed.engineConfig().flushLazyMs());
    assertEquals(
        0,
        BrokerConfig.of(
                Map.of("store", "seaweedfs", "filer", "127.0.0.1:8888", "flush.lazy.ms", "0"))
            .engineConfig()
            .flushLazyMs());
    assertEquals(25, BrokerConfig.of(Map.of("flush.lazy.ms", "25")).flushLazyMs());
    IllegalArgumentException bad =
        assertThrows(
            IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("flush.lazy.ms", "x")));
    assertTrue(bad.getMessage().contains("flush.lazy.ms"), bad.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("flush.lazy.ms", "-1")));
  }

  @Test
  void flagBeatsEnvironmentBeatsFileBeatsDefault() {
    Properties file = new Properties();
    file.setProperty("broker.id", "1");
    file.setProperty("default.partitions", "3");
    file.setProperty("data.dir", "/from/file");
    Map<String, String> env =
        Map.of("KELP_BROKER_ID", "2", "KELP_DEFAULT_PARTITIONS", "4", "KELP_REBUILD", "1");
    Map<String, String> flags = Map.of("broker.id", "5");
    BrokerConfig c = BrokerConfig.resolve(flags, env, file);
    assertEquals(5, c.brokerId());
    assertEquals(4, c.defaultPartitions());
    assertEquals("/from/file", c.dataDir().toString());
    assertEquals("flag --broker-id", c.source("broker.id"));
    assertEquals("environment variable KELP_DEFAULT_PARTITIONS", c.source("default.partitions"));
    assertEquals("config file key data.dir", c.source("data.dir"));
  }

  @Test
  void environmentVariableNamesFollowTheKey() {
    BrokerSettings.Setting s =
        BrokerConfig.SETTINGS.stream()
            .filter(x -> x.key().equals("flush.max.delay.ms"))
            .findFirst()
            .orElseThrow();
    assertEquals("KELP_FLUSH_MAX_DELAY_MS", s.envVar());
    assertEquals("--flush-max-delay-ms", s.flag());
    BrokerConfig c =
        BrokerConfig.resolve(Map.of(), Map.of("KELP_FLUSH_MAX_DELAY_MS", "7"), new Properties());
    assertEquals(7, c.engineConfig().flushMaxDelayMs());
  }

  @Test
  void badValuesNameTheSettingAndWhereTheValueCameFrom() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BrokerConfig.resolve(Map.of(), Map.of("KELP_BROKER_ID", "x"), new Properties()));
    assertTrue(e.getMessage().contains("broker.id"), e.getMessage());
    assertTrue(e.getMessage().contains("KELP_BROKER_ID"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("listen", "nohost")));
    assertThrows(
        IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("store", "seaweedfs")));
    assertThrows(
        IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("default.partitions", "0")));
    assertThrows(
        IllegalArgumentException.class, () -> BrokerConfig.of(Map.of("seaweed.fsync", "maybe")));
    assertFalse(BrokerConfig.of(Map.of("seaweed.fsync", "False")).seaweedFsync());
    assertTrue(BrokerConfig.of(Map.of("seaweed.fsync", "true")).seaweedFsync());
    IllegalArgumentException filer =
        assertThrows(
            IllegalArgumentException.class,
            () -> BrokerConfig.of(Map.of("store", "seaweedfs", "filer", "filer:8888.grpc")));
    assertTrue(filer.getMessage().contains("filer:8888.grpc"), filer.getMessage());
    assertTrue(filer.getMessage().contains("not a number"), filer.getMessage());
  }

  @Test
  void theFilersGrpcPortMayBeGivenAsSeaweedfsWritesIt() {
    BrokerConfig plain = BrokerConfig.of(Map.of("store", "seaweedfs", "filer", "filer:8888"));
    assertEquals(18888, plain.filer().grpcPort());
    BrokerConfig own = BrokerConfig.of(Map.of("store", "seaweedfs", "filer", "filer:8888.9999"));
    assertEquals(8888, own.filer().httpPort());
    assertEquals(9999, own.filer().grpcPort());
  }

  @Test
  void unknownKeysInTheFileAreRejected() {
    Properties file = new Properties();
    file.setProperty("brokerid", "1");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> BrokerConfig.resolve(Map.of(), Map.of(), file));
    assertTrue(e.getMessage().contains("brokerid"));
  }

  @Test
  void metricsEndpointCanBeTurnedOff() {
    assertNull(BrokerConfig.of(Map.of("metrics.listen", "off")).metricsListen());
  }

  @Test
  void hostPortParsesIpv6AndPrintsItBack() {
    HostPort hp = HostPort.parse("[::1]:9092");
    assertEquals("::1", hp.host());
    assertEquals(9092, hp.port());
    assertEquals("[::1]:9092", hp.toString());
  }
}
