package io.kelp.gateway.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.CommittedOffsets.Commit;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import io.kelp.gateway.coordinator.consumer.ConsumerGroups;
import io.kelp.gateway.coordinator.consumer.GroupError;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Groups that cannot be read back at start: the others are served, requests for them are answered
 * COORDINATOR_LOAD_IN_PROGRESS instead of seeing an empty group, and they are read on a later try.
 * The store failing for one group is the in-memory fake's (a volume server down does this on
 * SeaweedFS; the compat tests do that for real).
 */
class GroupLoadingTest {
  @TempDir Path dir;
  private TestTopics topics;
  private final MemoryGroupStore store = new MemoryGroupStore();
  private GroupCoordinator coordinator;
  private final TopicPartition t0 = new TopicPartition("t", 0);

  @BeforeEach
  void setUp() throws Exception {
    topics = new TestTopics(dir);
    topics.registry.create("t", 1, Map.of());
    store.writeOffsets("good", Map.of(t0, offset(7)), List.of());
    store.writeOffsets("stuck", Map.of(t0, offset(42)), List.of());
    coordinator =
        new GroupCoordinator(
            store, topics.registry, GroupConfig.defaults(), System::currentTimeMillis);
    ClassicGroups.register(coordinator);
    ConsumerGroups.register(coordinator);
  }

  @AfterEach
  void tearDown() throws Exception {
    coordinator.close();
    topics.close();
  }

  private static OffsetAndMetadata offset(long o) {
    return new OffsetAndMetadata(o, -1, "", 1, OffsetAndMetadata.NO_EXPIRY);
  }

  @Test
  void aGroupThatCannotBeReadIsAnsweredLoadInProgressUntilALaterTryReadsIt() throws Exception {
    store.unreadable("stuck");
    coordinator.load(5_000);
    CommittedOffsets offsets = new CommittedOffsets(coordinator);

    assertFalse(coordinator.loading("good"));
    assertEquals(7, offsets.fetch("good", null, -1, List.of(t0)).offsets().get(t0).offset());
    assertFalse(
        coordinator.loading("never-seen"), "a group the store does not have is not loading");

    assertTrue(coordinator.loading("stuck"));
    CommittedOffsets.Fetched fetched = offsets.fetch("stuck", null, -1, List.of(t0));
    assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, fetched.error());
    assertTrue(fetched.offsets().containsKey(t0));
    assertNull(fetched.offsets().get(t0));
    int writes = store.writes();
    Map<TopicPartition, Short> committed =
        offsets.commit("stuck", "", null, -1, (short) 8, -1, List.of(new Commit(t0, 1, -1, null)));
    assertEquals(Map.of(t0, Errors.COORDINATOR_LOAD_IN_PROGRESS), committed);
    assertEquals(writes, store.writes(), "nothing written for a group not read back");
    assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, offsets.delete("stuck", List.of(t0)).error());
    assertEquals(
        Map.of("stuck", Errors.COORDINATOR_LOAD_IN_PROGRESS),
        offsets.deleteGroups(List.of("stuck")));
    GroupError e =
        assertThrows(GroupError.class, () -> ConsumerGroups.existing(coordinator, "stuck"));
    assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, e.code());
    assertNull(coordinator.group("stuck"), "no empty group stands in for it");

    store.readable("stuck");
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (coordinator.loading("stuck") && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertFalse(coordinator.loading("stuck"), "read back on a later try");
    assertTrue(store.loads("stuck") >= 2);
    assertFalse(coordinator.loadingAny());
    assertNotNull(coordinator.group("stuck"));
    assertEquals(42, offsets.fetch("stuck", null, -1, List.of(t0)).offsets().get(t0).offset());
  }

  @Test
  void aGroupStillBeingReadWhenTheWaitEndsIsLoadingUntilItIsRead() throws Exception {
    store.holdLoads(true);
    coordinator.load(50);
    assertTrue(coordinator.loading("good"));
    assertTrue(coordinator.loading("stuck"));
    store.holdLoads(false);
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (coordinator.loadingAny() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertFalse(coordinator.loadingAny());
    assertEquals(1, store.loads("good"), "read once: the wait ending is not a failure");
    assertEquals(
        7,
        new CommittedOffsets(coordinator).fetch("good", null, -1, null).offsets().get(t0).offset());
  }
}
