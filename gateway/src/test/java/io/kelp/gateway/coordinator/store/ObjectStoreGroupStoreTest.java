package io.kelp.gateway.coordinator.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.TopicPartition;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.kelp.engine.store.LocalObjectStore;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.StoredGroup;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectStoreGroupStoreTest {
  @TempDir Path dir;

  private LocalObjectStore objects;
  private ObjectStoreGroupStore store;

  @BeforeEach
  void open() throws IOException {
    restart(ObjectStoreGroupStore.DEFAULT_COMPACTION_BYTES);
  }

  @AfterEach
  void close() throws IOException {
    objects.close();
  }

  /** A new process on the same data directory: nothing survives but what is on disk. */
  private void restart(long compactionBytes) throws IOException {
    if (objects != null) {
      objects.close();
    }
    objects = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    store = new ObjectStoreGroupStore(objects, compactionBytes);
  }

  private Map<String, StoredGroup> restartAndLoad() throws IOException {
    restart(ObjectStoreGroupStore.DEFAULT_COMPACTION_BYTES);
    return byId(store.loadAll());
  }

  private static Map<String, StoredGroup> byId(List<StoredGroup> groups) {
    Map<String, StoredGroup> out = new HashMap<>();
    for (StoredGroup g : groups) {
      assertNull(out.put(g.groupId(), g), "group listed twice: " + g.groupId());
    }
    return out;
  }

  private static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  private static OffsetAndMetadata offset(long offset) {
    return new OffsetAndMetadata(offset, 3, "m" + offset, 1_000 + offset, -1);
  }

  private static Map<TopicPartition, OffsetAndMetadata> commits(long base, int partitions) {
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    for (int p = 0; p < partitions; p++) {
      out.put(tp("orders", p), offset(base + p));
    }
    return out;
  }

  private void commit(String group, Map<TopicPartition, OffsetAndMetadata> commits)
      throws IOException {
    store.writeOffsets(group, commits, List.of());
  }

  private Path groupDir(String groupId) {
    return dir.resolve("kelp/groups").resolve(GroupDirectoryName.of(groupId));
  }

  private List<Path> logFiles(String groupId) throws IOException {
    try (Stream<Path> files = Files.list(groupDir(groupId))) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("log."))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /**
   * What a crash in the middle of the last append leaves on a real disk: the frame's first bytes
   * made it, its last {@code bytesLost} did not.
   */
  private void crashDuringLastAppend(String groupId, int bytesLost) throws IOException {
    objects.close();
    List<Path> logs = logFiles(groupId);
    Path last = logs.get(logs.size() - 1);
    try (FileChannel ch = FileChannel.open(last, StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() - bytesLost);
    }
  }

  @Test
  void offsetsDeletionsAndMetadataSurviveARestart() throws IOException {
    Map<TopicPartition, OffsetAndMetadata> first = new HashMap<>();
    first.put(tp("orders", 0), new OffsetAndMetadata(10, -1, null, 100, -1));
    first.put(tp("orders", 1), new OffsetAndMetadata(20, 5, "", 101, 9_999));
    first.put(tp("payments", 0), new OffsetAndMetadata(30, 7, "meta ü", 102, -1));
    store.writeOffsets("app", first, List.of());
    store.writeMetadata("app", "{\"type\":\"classic\",\"generation\":1}".getBytes());
    store.writeOffsets(
        "app",
        Map.of(tp("orders", 0), new OffsetAndMetadata(11, 2, "x", 103, -1)),
        List.of(tp("payments", 0)));
    store.writeMetadata("app", "{\"type\":\"classic\",\"generation\":2}".getBytes());
    store.writeOffsets("assign-only", commits(0, 2), List.of());

    Map<String, StoredGroup> loaded = restartAndLoad();

    assertEquals(Set.of("app", "assign-only"), loaded.keySet());
    StoredGroup app = loaded.get("app");
    assertArrayEquals("{\"type\":\"classic\",\"generation\":2}".getBytes(), app.metadata());
    assertEquals(
        Map.of(
            tp("orders", 0), new OffsetAndMetadata(11, 2, "x", 103, -1),
            tp("orders", 1), new OffsetAndMetadata(20, 5, "", 101, 9_999)),
        app.offsets());
    assertNull(loaded.get("assign-only").metadata());
    assertEquals(commits(0, 2), loaded.get("assign-only").offsets());
  }

  /**
   * A store that loads the groups takes them over: the store that wrote them before can write
   * nothing more to them, nor create groups the new one has not seen, and nothing it wrote is lost.
   */
  @Test
  void loadingTheGroupsFencesTheStoreThatLoadedThemBefore() throws IOException {
    store.loadAll();
    commit("app", commits(0, 3));
    ObjectStoreGroupStore taker = new ObjectStoreGroupStore(objects);
    Map<String, StoredGroup> taken = byId(taker.loadAll());
    assertEquals(commits(0, 3), taken.get("app").offsets());

    assertThrows(FencedException.class, () -> commit("app", commits(10, 3)));
    assertThrows(FencedException.class, () -> store.writeMetadata("app", new byte[] {1}));
    assertThrows(FencedException.class, () -> commit("new-group", commits(0, 1)));
    assertThrows(FencedException.class, () -> store.deleteGroup("app"));

    taker.writeOffsets("app", commits(20, 3), List.of());
    assertEquals(commits(20, 3), restartAndLoad().get("app").offsets());
  }

  @Test
  void aGroupWithOnlyMetadataAndClearedMetadataReadBack() throws IOException {
    store.writeMetadata("members-only", new byte[] {1, 2, 3});
    store.writeMetadata("cleared", new byte[] {9});
    store.writeMetadata("cleared", null);

    Map<String, StoredGroup> loaded = restartAndLoad();

    assertArrayEquals(new byte[] {1, 2, 3}, loaded.get("members-only").metadata());
    assertTrue(loaded.get("members-only").offsets().isEmpty());
    assertNull(loaded.get("cleared").metadata());
  }

  @Test
  void writesContinueTheStateReadAfterARestart() throws IOException {
    commit("g", commits(0, 3));
    restart(ObjectStoreGroupStore.DEFAULT_COMPACTION_BYTES);
    // no loadAll: the store reads the group itself before its first write
    store.writeOffsets("g", commits(100, 1), List.of(tp("orders", 2)));

    StoredGroup g = restartAndLoad().get("g");
    assertEquals(Map.of(tp("orders", 0), offset(100), tp("orders", 1), offset(1)), g.offsets());
    assertEquals(1, logFiles("g").size(), "a clean log is appended to, not replaced");
  }

  @Test
  void oddGroupIdsGetTheirOwnDirectoriesAndComeBack() throws IOException {
    String longId = "x".repeat(32 * 1024);
    List<String> ids =
        List.of(
            "",
            "/",
            ".",
            "..",
            "../../etc",
            "a/b",
            "a.tmp-1",
            "owner.epoch",
            "deleting",
            "h.abc",
            "%41",
            "A",
            "a",
            "snapshot.0000000001",
            "\u0000",
            "group with spaces",
            "\u7FA4\u7EC4-\uD83D\uDE00",
            "x".repeat(GroupDirectoryName.MAX_ESCAPED_LENGTH),
            "x".repeat(GroupDirectoryName.MAX_ESCAPED_LENGTH + 1),
            longId,
            longId.substring(1) + "y");
    Map<String, Long> expected = new HashMap<>();
    for (int i = 0; i < ids.size(); i++) {
      commit(ids.get(i), Map.of(tp("t", 0), offset(i)));
      expected.put(ids.get(i), (long) i);
    }

    Map<String, StoredGroup> loaded = restartAndLoad();

    Map<String, Long> actual = new HashMap<>();
    loaded.forEach((id, g) -> actual.put(id, g.offsets().get(tp("t", 0)).offset()));
    assertEquals(expected, actual);
    try (Stream<Path> dirs = Files.list(dir.resolve("kelp/groups"))) {
      List<String> names = dirs.map(p -> p.getFileName().toString()).toList();
      assertEquals(ids.size(), names.size());
      for (String name : names) {
        assertTrue(name.length() <= GroupDirectoryName.MAX_ESCAPED_LENGTH, name);
      }
    }
  }

  @ParameterizedTest(name = "{0} bytes of the last frame lost")
  @ValueSource(ints = {1, 3, 20, 80})
  void aTornLastAppendLosesOnlyThatBatch(int bytesLost) throws IOException {
    for (int batch = 0; batch < 5; batch++) {
      commit("g", commits(batch * 100L, 6));
    }
    crashDuringLastAppend("g", bytesLost);

    assertEquals(commits(300, 6), restartAndLoad().get("g").offsets());

    commit("g", commits(500, 2));
    Map<TopicPartition, OffsetAndMetadata> expected = commits(300, 6);
    expected.putAll(commits(500, 2));
    assertEquals(expected, restartAndLoad().get("g").offsets());
    assertEquals(2, logFiles("g").size(), "the write after the torn frame starts a new object");
  }

  @Test
  void aTornFirstAppendLeavesNothingToLoadYetTheGroupCanBeWrittenAgain() throws IOException {
    commit("fresh", commits(0, 4));
    crashDuringLastAppend("fresh", 5);

    assertTrue(restartAndLoad().isEmpty());

    commit("fresh", commits(7, 1));
    assertEquals(commits(7, 1), restartAndLoad().get("fresh").offsets());
  }

  @Test
  void aFrameFailingItsCrcIsIgnoredAndLaterWritesReadBack() throws IOException {
    commit("g", commits(0, 3));
    commit("g", commits(10, 3));
    objects.close();
    Path log = logFiles("g").get(0);
    byte[] bytes = Files.readAllBytes(log);
    bytes[bytes.length - 2] ^= 0x40; // inside the second frame's payload
    Files.write(log, bytes);

    assertEquals(commits(0, 3), restartAndLoad().get("g").offsets());

    commit("g", commits(20, 1));
    Map<TopicPartition, OffsetAndMetadata> expected = commits(0, 3);
    expected.putAll(commits(20, 1));
    assertEquals(expected, restartAndLoad().get("g").offsets());
  }

  @Test
  void logObjectsTakeAtMostTheStoresAppendsPerObject() throws IOException {
    FaultyStore bounded = new FaultyStore(objects);
    bounded.maxAppends = 3;
    ObjectStoreGroupStore groups = new ObjectStoreGroupStore(bounded);
    for (int i = 0; i < 10; i++) {
      groups.writeOffsets("consumer", commits(i * 10L, 2), List.of());
    }
    assertEquals(
        List.of(
            "log.0000000000.000000",
            "log.0000000000.000001",
            "log.0000000000.000002",
            "log.0000000000.000003"),
        names(groupDir("consumer")));
    assertEquals(commits(90, 2), restartAndLoad().get("consumer").offsets());

    // After a restart the last object's appends are unknown: writes go on in a new one.
    FaultyStore reopened = new FaultyStore(objects);
    reopened.maxAppends = 3;
    groups = new ObjectStoreGroupStore(reopened);
    groups.writeMetadata("consumer", new byte[] {7});
    assertEquals(5, names(groupDir("consumer")).size());
    StoredGroup back = restartAndLoad().get("consumer");
    assertEquals(commits(90, 2), back.offsets());
    assertArrayEquals(new byte[] {7}, back.metadata());
  }

  /** The group's objects in a directory, without the local store's owner-epoch marker. */
  private static List<String> names(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> !n.equals("owner.epoch"))
          .sorted()
          .toList();
    }
  }

  @Test
  void compactionKeepsObjectsBoundedAndTheStateExact() throws IOException {
    long threshold = 64 * 1024;
    restart(threshold);
    long bound = 0;
    for (int i = 0; i < 10_000; i++) {
      commit("busy", commits(i * 10L, 10)); // 100,000 commits of the same 10 partitions
      if (i % 500 == 0) {
        long size = directorySize(groupDir("busy"));
        bound = Math.max(bound, size);
        assertTrue(size < threshold + 16 * 1024, "group directory holds " + size + " bytes");
      }
    }
    store.writeMetadata("busy", new byte[] {42});

    StoredGroup busy = restartAndLoad().get("busy");

    assertEquals(commits(9_999 * 10L, 10), busy.offsets());
    assertArrayEquals(new byte[] {42}, busy.metadata());
    try (Stream<Path> files = Files.list(groupDir("busy"))) {
      List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
      assertTrue(names.size() <= 3, "objects left: " + names);
      assertTrue(names.stream().anyMatch(n -> n.startsWith("snapshot.")), names.toString());
    }
  }

  @Test
  void leftoversOfAnInterruptedCompactionAreIgnoredThenDeleted() throws IOException {
    restart(4 * 1024);
    for (int i = 0; i < 50; i++) {
      commit("g", commits(i, 10));
    }
    // The old generation's objects as a crash between the snapshot and the deletions leaves them.
    Path groupDir = groupDir("g");
    Files.write(groupDir.resolve(GroupState.logName(0, 0)), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    Files.write(groupDir.resolve(GroupState.snapshotName(0)), new byte[] {0});

    restart(4 * 1024);
    assertEquals(commits(49, 10), byId(store.loadAll()).get("g").offsets());
    for (int i = 50; i < 100; i++) {
      commit("g", commits(i, 10));
    }
    assertFalse(Files.exists(groupDir.resolve(GroupState.logName(0, 0))));
    assertFalse(Files.exists(groupDir.resolve(GroupState.snapshotName(0))));
    assertEquals(commits(99, 10), restartAndLoad().get("g").offsets());
  }

  @Test
  void aDamagedNewestSnapshotFallsBackToTheOneBefore() throws IOException {
    // A store that loses deletions keeps every generation, as if each compaction crashed before
    // deleting the previous one.
    objects.close();
    objects = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
    FaultyStore faulty = new FaultyStore(objects);
    faulty.loseDeletions = true;
    store = new ObjectStoreGroupStore(faulty, 1024);
    Map<TopicPartition, OffsetAndMetadata> expected = new HashMap<>();
    int i = 0;
    while (!Files.exists(groupDir("g").resolve(GroupState.snapshotName(2)))) {
      commit("g", Map.of(tp("t", i), offset(i)));
      expected.put(tp("t", i), offset(i));
      i++;
    }
    commit("g", Map.of(tp("t", i), offset(i)));
    expected.put(tp("t", i), offset(i));
    objects.close();
    Path newest = groupDir("g").resolve(GroupState.snapshotName(2));
    byte[] bytes = Files.readAllBytes(newest);
    bytes[bytes.length / 2] ^= 1;
    Files.write(newest, bytes);

    assertEquals(expected, restartAndLoad().get("g").offsets());
  }

  @Test
  void aFailedAppendFailsTheWriteAndLaterWritesGoPastItsBytes() throws IOException {
    FaultyStore faulty = new FaultyStore(objects);
    store = new ObjectStoreGroupStore(faulty, ObjectStoreGroupStore.DEFAULT_COMPACTION_BYTES);
    commit("g", commits(0, 3));
    faulty.tearNextAppendAt = 20;
    assertThrows(IOException.class, () -> commit("g", commits(10, 3)));

    commit("g", Map.of(tp("orders", 5), offset(50)));

    Map<TopicPartition, OffsetAndMetadata> expected = commits(0, 3);
    expected.put(tp("orders", 5), offset(50));
    assertEquals(expected, restartAndLoad().get("g").offsets());
    assertEquals(2, logFiles("g").size());
  }

  @Test
  void aFailedSnapshotDoesNotFailTheWriteAndIsTriedAgain() throws IOException {
    FaultyStore faulty = new FaultyStore(objects);
    store = new ObjectStoreGroupStore(faulty, 2 * 1024);
    faulty.failNextPut = true;
    for (int i = 0; i < 40; i++) {
      commit("g", commits(i, 10));
    }
    try (Stream<Path> files = Files.list(groupDir("g"))) {
      List<String> snapshots =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.startsWith(GroupState.SNAPSHOT_PREFIX))
              .toList();
      assertEquals(1, snapshots.size(), snapshots.toString());
      assertTrue(snapshots.get(0).compareTo(GroupState.snapshotName(2)) >= 0, snapshots.get(0));
    }
    assertEquals(commits(39, 10), restartAndLoad().get("g").offsets());
  }

  @Test
  void deletedGroupsStayDeletedAndCanStartOver() throws IOException {
    commit("gone", commits(0, 3));
    store.writeMetadata("gone", new byte[] {1});
    commit("kept", commits(0, 1));
    store.deleteGroup("gone");
    store.deleteGroup("never-existed");

    assertFalse(Files.exists(groupDir("gone")));
    assertEquals(Set.of("kept"), restartAndLoad().keySet());

    commit("gone", commits(5, 1));
    StoredGroup again = restartAndLoad().get("gone");
    assertEquals(commits(5, 1), again.offsets());
    assertNull(again.metadata());
  }

  @Test
  void aDeletionInterruptedByACrashIsFinishedOnLoad() throws IOException {
    commit("half", commits(0, 3));
    commit("whole", commits(0, 3));
    objects.close();
    Files.write(groupDir("half").resolve(GroupState.DELETING_MARKER), new byte[0]);

    assertEquals(Set.of("whole"), restartAndLoad().keySet());
    assertFalse(Files.exists(groupDir("half")));
  }

  @Test
  void aDirectoryWithNothingValidIsSkipped() throws IOException {
    commit("ok", commits(0, 1));
    Path junk = groupDir("junk");
    Files.createDirectories(junk);
    Files.write(junk.resolve(GroupState.logName(0, 0)), "not a frame".getBytes());
    Files.createDirectories(dir.resolve("kelp/groups/empty"));

    assertEquals(Set.of("ok"), restartAndLoad().keySet());

    commit("junk", commits(3, 1));
    assertEquals(commits(3, 1), restartAndLoad().get("junk").offsets());
  }

  @Test
  void manyGroupsWrittenConcurrently() throws Exception {
    int groups = 400;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  for (int g = thread; g < groups; g += 8) {
                    String id = "group-" + g;
                    commit(id, commits(g, 3));
                    store.writeMetadata(id, ("m" + g).getBytes(StandardCharsets.UTF_8));
                    commit(id, commits(g + 1_000, 1));
                    if (g % 10 == 0) {
                      store.deleteGroup(id);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    Map<String, StoredGroup> loaded = restartAndLoad();

    assertEquals(groups - groups / 10, loaded.size());
    for (int g = 0; g < groups; g++) {
      StoredGroup s = loaded.get("group-" + g);
      if (g % 10 == 0) {
        assertNull(s);
        continue;
      }
      Map<TopicPartition, OffsetAndMetadata> expected = commits(g, 3);
      expected.putAll(commits(g + 1_000, 1));
      assertEquals(expected, s.offsets(), "group-" + g);
      assertArrayEquals(("m" + g).getBytes(StandardCharsets.UTF_8), s.metadata());
    }
  }

  @Test
  void oneGroupFromManyThreadsLosesNoBatch() throws Exception {
    restart(8 * 1024);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int partition = t;
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i <= 300; i++) {
                    commit("shared", Map.of(tp("orders", partition), offset(i)));
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    Map<TopicPartition, OffsetAndMetadata> expected = new HashMap<>();
    for (int p = 0; p < 4; p++) {
      expected.put(tp("orders", p), offset(300));
    }
    assertEquals(expected, restartAndLoad().get("shared").offsets());
  }

  @Test
  void measureOneThousandCommitsOfSixPartitions() throws IOException {
    Collection<TopicPartition> none = List.of();
    long start = System.nanoTime();
    for (int i = 0; i < 1_000; i++) {
      store.writeOffsets("consumer", commits(i * 6L, 6), none);
    }
    long micros = (System.nanoTime() - start) / 1_000;
    System.out.printf(
        "1000 writeOffsets of 6 partitions: %d ms in all, %d us per call (%s)%n",
        micros / 1_000, micros / 1_000, objects.describe());
    assertEquals(commits(999 * 6L, 6), restartAndLoad().get("consumer").offsets());
  }

  /** A store that can lose deletions, tear an append and then fail it, or fail a put. */
  private static final class FaultyStore implements ObjectStore {
    private final ObjectStore delegate;
    volatile boolean loseDeletions;
    volatile int tearNextAppendAt = -1;
    volatile boolean failNextPut;
    volatile long maxAppends = Long.MAX_VALUE;

    FaultyStore(ObjectStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public void append(String path, ByteBuf data, Fence fence) throws IOException {
      int tearAt = tearNextAppendAt;
      if (tearAt >= 0) {
        tearNextAppendAt = -1;
        delegate.append(path, data.slice(data.readerIndex(), tearAt), fence);
        throw new IOException("disk full after " + tearAt + " bytes of " + path);
      }
      delegate.append(path, data, fence);
    }

    @Override
    public void put(String path, ByteBuf data, Fence fence) throws IOException {
      if (failNextPut) {
        failNextPut = false;
        throw new IOException("put of " + path + " failed");
      }
      delegate.put(path, data, fence);
    }

    @Override
    public ByteBuf read(String path, long position, int length) throws IOException {
      return delegate.read(path, position, length);
    }

    @Override
    public Optional<ObjectInfo> stat(String path) throws IOException {
      return delegate.stat(path);
    }

    @Override
    public List<ObjectInfo> list(String directory) throws IOException {
      return delegate.list(directory);
    }

    @Override
    public void delete(String path) throws IOException {
      if (!loseDeletions) {
        delegate.delete(path);
      }
    }

    @Override
    public long claim(String directory, long epoch) throws IOException {
      return delegate.claim(directory, epoch);
    }

    @Override
    public String describe() {
      return delegate.describe();
    }

    @Override
    public long maxAppendsPerObject() {
      return maxAppends;
    }

    @Override
    public void close() throws IOException {
      delegate.close();
    }
  }

  private static long directorySize(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      long total = 0;
      for (Path p : (Iterable<Path>) files::iterator) {
        total += Files.size(p);
      }
      return total;
    }
  }
}
