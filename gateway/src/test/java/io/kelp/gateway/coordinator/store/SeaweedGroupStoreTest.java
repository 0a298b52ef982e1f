package io.kelp.gateway.coordinator.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.store.FencedException;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.StoredGroup;
import io.kelp.seaweed.SeaweedObjectStore;
import io.kelp.seaweed.WeedProcess;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Groups on a real SeaweedFS, written by two brokers' stores in turn: commits go to file ids
 * reserved ahead, most of them not yet listed in the filer when the second store takes the groups
 * over, and the takeover still reads every one of them back and shuts the first store out.
 */
class SeaweedGroupStoreTest {

  private static Map<TopicPartition, OffsetAndMetadata> commits(long base, int partitions) {
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    for (int p = 0; p < partitions; p++) {
      out.put(new TopicPartition("orders", p), new OffsetAndMetadata(base + p, 1, "m", 1_000, -1));
    }
    return out;
  }

  private static Map<String, StoredGroup> byId(List<StoredGroup> groups) {
    Map<String, StoredGroup> out = new HashMap<>();
    groups.forEach(g -> out.put(g.groupId(), g));
    return out;
  }

  /**
   * A group's commits, uploaded to reserved ids and not listed in the filer, are listed once the
   * group has been left alone: a store that reads without claiming (SeaweedFS's own tools, in
   * effect) then sees the group's log objects whole.
   */
  @Test
  void anIdleGroupsCommitsArePublishedForReadersThatDoNotClaim() throws Exception {
    try (WeedProcess weed = WeedProcess.start();
        SeaweedObjectStore writer =
            new SeaweedObjectStore(weed.filerAddress(), UnpooledByteBufAllocator.DEFAULT);
        SeaweedObjectStore reader =
            new SeaweedObjectStore(weed.filerAddress(), UnpooledByteBufAllocator.DEFAULT)) {
      ObjectStoreGroupStore groups = new ObjectStoreGroupStore(writer);
      groups.loadAll();
      for (int i = 0; i < 5; i++) {
        groups.writeOffsets("idle-app", commits(i * 10L, 3), List.of());
      }
      String dir = ObjectStoreGroupStore.ROOT + "/" + GroupDirectoryName.of("idle-app");
      long written = logBytes(writer, dir);
      assertTrue(written > 0);
      groups.publishIdle(60_000);
      assertTrue(logBytes(reader, dir) < written, "listed before the group was left alone");
      Thread.sleep(20);
      groups.publishIdle(10);
      assertEquals(written, logBytes(reader, dir), "the log objects as the filer lists them");
      // The writer goes on after its reservation was listed and dropped.
      groups.writeOffsets("idle-app", commits(100, 3), List.of());
      assertTrue(logBytes(writer, dir) > written);
      groups.publishIdle(0);
      assertEquals(logBytes(writer, dir), logBytes(reader, dir));
    }
  }

  /** The bytes of a group directory's log objects, as {@code store} sees them. */
  private static long logBytes(SeaweedObjectStore store, String dir) throws Exception {
    long bytes = 0;
    for (ObjectInfo o : store.list(dir)) {
      if (o.name().startsWith("log.")) {
        bytes += o.size();
      }
    }
    return bytes;
  }

  @Test
  void aTakeoverReadsEveryAcknowledgedCommitAndFencesTheFormerWriter() throws Exception {
    try (WeedProcess weed = WeedProcess.start();
        SeaweedObjectStore first =
            new SeaweedObjectStore(weed.filerAddress(), UnpooledByteBufAllocator.DEFAULT);
        SeaweedObjectStore second =
            new SeaweedObjectStore(weed.filerAddress(), UnpooledByteBufAllocator.DEFAULT)) {
      ObjectStoreGroupStore before = new ObjectStoreGroupStore(first);
      before.loadAll();
      // 41 writes: more than one object's worth of appends, the last ones in no filer entry yet.
      for (int i = 0; i < 40; i++) {
        before.writeOffsets("app", commits(i * 10L, 3), List.of());
      }
      before.writeMetadata("app", new byte[] {4, 2});
      assertTrue(
          first.writerTransactions() < 10,
          "commits should not take a filer transaction each: " + first.writerTransactions());

      ObjectStoreGroupStore after = new ObjectStoreGroupStore(second);
      StoredGroup app = byId(after.loadAll()).get("app");
      assertEquals(commits(390, 3), app.offsets());
      assertArrayEquals(new byte[] {4, 2}, app.metadata());

      assertThrows(
          FencedException.class, () -> before.writeOffsets("app", commits(900, 3), List.of()));
      assertThrows(
          FencedException.class, () -> before.writeOffsets("other", commits(0, 1), List.of()));

      after.writeOffsets("app", commits(500, 3), List.of());
      try (SeaweedObjectStore third =
          new SeaweedObjectStore(weed.filerAddress(), UnpooledByteBufAllocator.DEFAULT)) {
        Map<String, StoredGroup> again = byId(new ObjectStoreGroupStore(third).loadAll());
        assertEquals(List.of("app"), List.copyOf(again.keySet()));
        assertEquals(commits(500, 3), again.get("app").offsets());
      }
    }
  }
}
