package io.kelp.engine.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.store.LocalObjectStore;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopicCatalogTest {
  @TempDir Path dir;

  private static final long T0 = Instant.parse("2026-11-29T22:00:00Z").toEpochMilli();

  @Test
  void ringRangesSplitLikeSeaweedMq() {
    assertEquals(List.of("0000-2520"), TopicCatalog.ringRanges(1));
    assertEquals(List.of("0000-1260", "1260-2520"), TopicCatalog.ringRanges(2));
    assertEquals(
        List.of("0000-0630", "0630-1260", "1260-1890", "1890-2520"), TopicCatalog.ringRanges(4));
    List<String> sixteen = TopicCatalog.ringRanges(16);
    assertEquals("0000-0157", sixteen.get(0));
    assertEquals("2355-2520", sixteen.get(15));
  }

  @Test
  void topicsAreStoredUnderTheNamespaceAndSurviveReload() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    TopicCatalog catalog = new TopicCatalog(store, "kafka");
    TopicInfo orders = catalog.create("orders", 2, Map.of("cleanup.policy", "compact"), T0);
    assertEquals(
        List.of("v2026-11-29-22-00-00/0000-1260", "v2026-11-29-22-00-00/1260-2520"),
        orders.partitionDirs());
    assertTrue(Files.exists(dir.resolve("topics/kafka/orders/topic.json")));
    assertEquals(
        "/topics/kafka/orders/v2026-11-29-22-00-00/1260-2520", catalog.partitionDir(orders, 1));

    TopicCatalog again = new TopicCatalog(store, "kafka");
    again.load();
    TopicInfo loaded = again.get("orders").orElseThrow();
    assertEquals(orders, loaded);
    assertEquals(orders, again.get(orders.topicId()).orElseThrow());
    assertThrows(IllegalStateException.class, () -> again.create("orders", 1, Map.of(), T0));
  }

  @Test
  void addedPartitionsGetANewVersionDirectoryAndOldOnesStay() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    TopicCatalog catalog = new TopicCatalog(store, "kafka");
    catalog.create("t", 2, Map.of(), T0);
    TopicInfo grown = catalog.addPartitions("t", 4, T0 + 60_000);
    assertEquals(
        List.of(
            "v2026-11-29-22-00-00/0000-1260",
            "v2026-11-29-22-00-00/1260-2520",
            "v2026-11-29-22-01-00/1260-1890",
            "v2026-11-29-22-01-00/1890-2520"),
        grown.partitionDirs());
    assertThrows(IllegalArgumentException.class, () -> catalog.addPartitions("t", 3, T0));
  }

  @Test
  void deleteRemovesMetadataAndData() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    TopicCatalog catalog = new TopicCatalog(store, "kafka");
    TopicInfo t = catalog.create("gone", 1, Map.of(), T0);
    store.append(
        catalog.partitionDir(t, 0) + "/00000000000000000000.log",
        Unpooled.wrappedBuffer(new byte[] {1, 2}),
        null);
    catalog.delete("gone");
    assertFalse(Files.exists(dir.resolve("topics/kafka/gone")));
    assertTrue(catalog.get("gone").isEmpty());
    TopicCatalog again = new TopicCatalog(store, "kafka");
    again.load();
    assertTrue(again.list().isEmpty());
  }

  @Test
  void configsAreReplacedDurably() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    TopicCatalog catalog = new TopicCatalog(store, "kafka");
    catalog.create("c", 1, Map.of("retention.ms", "1000"), T0);
    catalog.setConfigs("c", Map.of("retention.ms", "2000", "segment.bytes", "1048576"));
    TopicCatalog again = new TopicCatalog(store, "kafka");
    again.load();
    assertEquals(
        Map.of("retention.ms", "2000", "segment.bytes", "1048576"),
        again.get("c").orElseThrow().configs());
  }

  @Test
  void aTopicFileThatCannotBeReadLeavesItsTopicOutAndKeepsItsName() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    TopicCatalog catalog = new TopicCatalog(store, "kafka");
    TopicInfo good = catalog.create("good", 1, Map.of(), T0);
    for (String name : List.of("garbage", "renamed", "empty", "badid", "escapes")) {
      catalog.create(name, 1, Map.of(), T0);
    }
    Map<String, String> broken =
        Map.of(
            "garbage", "{not json",
            "renamed", topicFile("other", UUID.randomUUID().toString(), "v1/0000-2520"),
            "empty", topicFile("empty", UUID.randomUUID().toString(), null),
            "badid", topicFile("badid", "not-a-uuid", "v1/0000-2520"),
            "escapes", topicFile("escapes", UUID.randomUUID().toString(), "../good/v1"));
    for (Map.Entry<String, String> e : broken.entrySet()) {
      Files.writeString(dir.resolve("topics/kafka/" + e.getKey() + "/topic.json"), e.getValue());
    }

    TopicCatalog again = new TopicCatalog(store, "kafka");
    again.load();
    assertEquals(List.of(good), again.list(), "the readable topic loads");
    for (String name : broken.keySet()) {
      String why = again.unreadable(name).orElseThrow(() -> new AssertionError(name));
      assertTrue(why.contains("/topics/kafka/" + name + "/topic.json"), why);
      IllegalStateException refused =
          assertThrows(IllegalStateException.class, () -> again.create(name, 1, Map.of(), T0));
      assertTrue(refused.getMessage().contains("not served"), refused.getMessage());
    }
    assertTrue(again.unreadable("good").isEmpty());
    assertTrue(
        Files.readString(dir.resolve("topics/kafka/garbage/topic.json")).equals("{not json"),
        "a refused create leaves the file as it was");

    again.delete("garbage");
    assertFalse(Files.exists(dir.resolve("topics/kafka/garbage")));
    assertTrue(again.unreadable("garbage").isEmpty());
    again.create("garbage", 2, Map.of(), T0);
    TopicCatalog third = new TopicCatalog(store, "kafka");
    third.load();
    assertEquals(2, third.get("garbage").orElseThrow().partitions());
  }

  @Test
  void aTopicTakenOutOfServiceAfterLoadingKeepsItsName() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    TopicCatalog catalog = new TopicCatalog(store, "kafka");
    catalog.create("t", 1, Map.of("retention.ms", "soon"), T0);
    catalog.markUnreadable("t", "its configs are not valid");
    assertTrue(catalog.get("t").isEmpty());
    assertEquals("its configs are not valid", catalog.unreadable("t").orElseThrow());
    assertThrows(IllegalStateException.class, () -> catalog.create("t", 1, Map.of(), T0));
    assertTrue(Files.exists(dir.resolve("topics/kafka/t/topic.json")));
  }

  @Test
  void anUnreadableTopicFileIsReadAgainOnAskingUntilItIsRepairedOrGone() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    TopicCatalog catalog = new TopicCatalog(store, "kafka");
    TopicInfo mended = catalog.create("mended", 2, Map.of(), T0);
    catalog.create("removed", 1, Map.of(), T0);
    Path mendedFile = dir.resolve("topics/kafka/mended/topic.json");
    String good = Files.readString(mendedFile);
    Files.writeString(mendedFile, "{\"name\":");
    Files.writeString(dir.resolve("topics/kafka/removed/topic.json"), "[]");

    TopicCatalog again = new TopicCatalog(store, "kafka");
    again.load();
    assertTrue(again.reread("mended").isEmpty(), "still broken");
    assertTrue(again.unreadable("mended").orElseThrow().contains("not JSON"));
    Files.writeString(mendedFile, good);
    assertEquals(mended, again.reread("mended").orElseThrow());
    assertTrue(again.get("mended").isEmpty(), "not served before markServed");
    again.markServed(mended);
    assertEquals(mended, again.get("mended").orElseThrow());
    assertTrue(again.unreadable("mended").isEmpty());
    assertTrue(again.reread("mended").isEmpty(), "a served topic is not read again");

    Files.delete(dir.resolve("topics/kafka/removed/topic.json"));
    assertTrue(again.reread("removed").isEmpty());
    assertTrue(again.unreadable("removed").isEmpty(), "a topic whose file is gone frees its name");
    again.create("removed", 1, Map.of(), T0);
  }

  private static String topicFile(String name, String id, String partitionDir) {
    return "{\"name\":\""
        + name
        + "\",\"topicId\":\""
        + id
        + "\",\"createdMs\":1,\"partitions\":["
        + (partitionDir == null ? "" : "\"" + partitionDir + "\"")
        + "],\"configs\":{}}";
  }
}
