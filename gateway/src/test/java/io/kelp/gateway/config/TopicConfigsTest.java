package io.kelp.gateway.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.log.LogConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicConfigsTest {

  @Test
  void everyKeyTheIssueNamesIsKnown() {
    for (String key :
        List.of(
            "cleanup.policy",
            "retention.ms",
            "retention.bytes",
            "segment.bytes",
            "segment.ms",
            "max.message.bytes",
            "message.timestamp.type",
            "message.timestamp.before.max.ms",
            "message.timestamp.after.max.ms",
            "message.timestamp.difference.max.ms",
            "delete.retention.ms",
            "min.compaction.lag.ms",
            "max.compaction.lag.ms",
            "min.cleanable.dirty.ratio",
            "compression.type",
            "min.insync.replicas",
            "unclean.leader.election.enable",
            "index.interval.bytes",
            "segment.index.bytes",
            "segment.jitter.ms",
            "flush.messages",
            "flush.ms",
            "file.delete.delay.ms",
            "preallocate",
            "message.downconversion.enable",
            "local.retention.ms",
            "local.retention.bytes",
            "remote.storage.enable",
            "follower.replication.throttled.replicas",
            "leader.replication.throttled.replicas")) {
      assertTrue(TopicConfigs.key(key).isPresent(), key);
    }
  }

  @Test
  void defaultsAreKafkas() {
    TopicConfig c = TopicConfig.of(Map.of());
    assertEquals("delete", c.value("cleanup.policy"));
    assertEquals("604800000", c.value("retention.ms"));
    assertEquals("1048588", c.value("max.message.bytes"));
    assertEquals("3600000", c.value("message.timestamp.after.max.ms"));
    assertEquals(1048588, c.maxMessageBytes());
    assertFalse(c.logAppendTime());
    LogConfig log = c.logConfig();
    assertEquals(LogConfig.defaults(), log);
  }

  @Test
  void unknownKeyIsRejectedNamingTheKey() {
    InvalidConfigException e =
        assertThrows(
            InvalidConfigException.class,
            () -> TopicConfigs.validate(Map.of("retention.mss", "1")));
    assertTrue(e.getMessage().contains("retention.mss"), e.getMessage());
  }

  @Test
  void badValuesAreRejectedNamingTheKey() {
    for (Map<String, String> bad :
        List.of(
            Map.of("retention.ms", "soon"),
            Map.of("retention.ms", "-2"),
            Map.of("segment.bytes", "1000"),
            Map.of("cleanup.policy", "compact,forever"),
            Map.of("message.timestamp.type", "createtime"),
            Map.of("min.cleanable.dirty.ratio", "1.5"),
            Map.of("preallocate", "yes"),
            Map.of("remote.storage.enable", "true"),
            Map.of("leader.replication.throttled.replicas", "0:x"),
            Map.of("min.compaction.lag.ms", "10", "max.compaction.lag.ms", "5"))) {
      InvalidConfigException e =
          assertThrows(
              InvalidConfigException.class, () -> TopicConfigs.validate(bad), bad::toString);
      String firstKey = bad.keySet().iterator().next();
      assertTrue(
          e.getMessage().contains(firstKey) || bad.size() > 1,
          () -> e.getMessage() + " for " + bad);
    }
  }

  @Test
  void validValuesAreNormalisedAndActedOn() throws Exception {
    Map<String, String> set =
        TopicConfigs.validate(
            Map.of(
                "cleanup.policy", " compact , delete ",
                "retention.ms", " 1000 ",
                "message.timestamp.type", "LogAppendTime",
                "preallocate", "TRUE",
                "leader.replication.throttled.replicas", "0:1,1:1"));
    assertEquals("compact,delete", set.get("cleanup.policy"));
    assertEquals("1000", set.get("retention.ms"));
    assertEquals("true", set.get("preallocate"));
    TopicConfig c = TopicConfig.of(set);
    assertTrue(c.compact());
    assertTrue(c.logAppendTime());
    assertTrue(c.logConfig().compact());
    assertTrue(c.logConfig().delete());
    assertTrue(c.logConfig().logAppendTime());
    assertEquals(1000, c.logConfig().retentionMs());
    assertTrue(c.isSet("retention.ms"));
    assertFalse(c.isSet("segment.ms"));
  }
}
