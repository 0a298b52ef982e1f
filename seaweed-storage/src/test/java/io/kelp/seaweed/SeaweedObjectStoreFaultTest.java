package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.producer.ProducerIdAllocator;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the contract cannot show: restarts of SeaweedFS, two writers, many chunks, latency. */
class SeaweedObjectStoreFaultTest {
  private WeedProcess weed;

  @BeforeEach
  void startWeed() throws Exception {
    weed = WeedProcess.start();
  }

  @AfterEach
  void stopWeed() throws Exception {
    weed.close();
  }

  private SeaweedObjectStore store() {
    return new SeaweedObjectStore(
        weed.filerAddress(), "", "", Duration.ofSeconds(60), PooledByteBufAllocator.DEFAULT);
  }

  private static ByteBuf record(int i) {
    return Unpooled.wrappedBuffer(String.format("%08d", i).getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void appendsRideOutAFilerRestartWithoutLossOrDuplicates() throws Exception {
    appendsRideOutARestart(false);
  }

  /**
   * Fenced appends (a partition's produce data) upload while their transaction runs: a restart
   * fails either or both, and what the appends returned for must still be there, once each.
   */
  @Test
  void fencedAppendsRideOutARestartWithoutLossOrDuplicates() throws Exception {
    appendsRideOutARestart(true);
  }

  private void appendsRideOutARestart(boolean fenced) throws Exception {
    int writers = 4;
    int perWriter = 200;
    try (SeaweedObjectStore store = store()) {
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          String dir = "/topics/kafka/restart/v1/000" + w + "-2520";
          String path = dir + "/0.log";
          Fence fence = fenced ? new Fence(dir, 1) : null;
          if (fenced) {
            assertEquals(1, store.claim(dir, 1));
          }
          futures.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < perWriter; i++) {
                      store.append(path, record(i), fence);
                    }
                    return null;
                  }));
        }
        Thread.sleep(300);
        weed.kill();
        Thread.sleep(500);
        weed.restart();
        for (Future<?> f : futures) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      for (int w = 0; w < writers; w++) {
        String path = "/topics/kafka/restart/v1/000" + w + "-2520/0.log";
        ByteBuf all = store.read(path, 0, perWriter * 8 + 100);
        try {
          String text = all.toString(StandardCharsets.US_ASCII);
          StringBuilder expected = new StringBuilder();
          for (int i = 0; i < perWriter; i++) {
            expected.append(String.format("%08d", i));
          }
          assertEquals(expected.toString(), text, "every append exactly once, in order: " + path);
        } finally {
          all.release();
        }
      }
    }
  }

  @Test
  void aSecondStoreThatClaimsHigherFencesTheFirst() throws Exception {
    String dir = "/topics/kafka/fenced/v1/0000-2520";
    try (SeaweedObjectStore first = store();
        SeaweedObjectStore second = store()) {
      assertEquals(1, first.claim(dir, 1));
      first.append(dir + "/0.log", record(1), new Fence(dir, 1));
      assertEquals(2, second.claim(dir, 2));
      assertThrows(
          FencedException.class, () -> first.append(dir + "/0.log", record(2), new Fence(dir, 1)));
      assertThrows(
          FencedException.class, () -> first.put(dir + "/meta", record(2), new Fence(dir, 1)));
      assertEquals(2, first.claim(dir, 1), "the first learns it lost the directory");
      second.append(dir + "/0.log", record(3), new Fence(dir, 2));
      ByteBuf back = second.read(dir + "/0.log", 0, 100);
      try {
        assertEquals("0000000100000003", back.toString(StandardCharsets.US_ASCII));
      } finally {
        back.release();
      }
    }
  }

  /**
   * Two stores (two brokers) claiming the same epoch at once: exactly one gets it, the other is
   * told it is fenced, and only the winner's fenced writes land.
   */
  @Test
  void racingClaimsOfOneEpochHaveOneWinner() throws Exception {
    String dir = "/topics/kafka/race/v1/0000-2520";
    try (SeaweedObjectStore a = store();
        SeaweedObjectStore b = store()) {
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        for (long epoch = 1; epoch <= 20; epoch++) {
          long e = epoch;
          Future<Long> fa = pool.submit(() -> a.claim(dir, e));
          Future<Long> fb = pool.submit(() -> b.claim(dir, e));
          boolean aWon = won(fa, e);
          boolean bWon = won(fb, e);
          assertTrue(aWon ^ bWon, "epoch " + e + ": a won " + aWon + ", b won " + bWon);
          SeaweedObjectStore winner = aWon ? a : b;
          SeaweedObjectStore loser = aWon ? b : a;
          assertEquals(e, winner.claim(dir, e), "claiming again is idempotent for the winner");
          assertThrows(FencedException.class, () -> loser.claim(dir, e));
          winner.put(dir + "/meta", record((int) e), new Fence(dir, e));
          assertThrows(
              FencedException.class,
              () -> loser.put(dir + "/meta", record((int) -e), new Fence(dir, e)));
          assertThrows(
              FencedException.class,
              () -> loser.append(dir + "/0.log", record((int) -e), new Fence(dir, e)));
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals(20, a.claim(dir, 0));
      ByteBuf back = a.read(dir + "/meta", 0, 100);
      try {
        assertEquals("00000020", back.toString(StandardCharsets.US_ASCII));
      } finally {
        back.release();
      }
      assertTrue(a.stat(dir + "/0.log").isEmpty(), "no append of a loser landed");
    }
  }

  @Test
  void brokersSharingAFilerNeverHandOutTheSameProducerId() throws Exception {
    // Blocks of 1000 ids: 3 brokers taking 2,500 ids each race for blocks 8 times in all.
    int brokers = 3;
    int perBroker = 2500;
    List<SeaweedObjectStore> stores = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(brokers);
    try {
      List<Future<List<Long>>> taken = new ArrayList<>();
      for (int b = 0; b < brokers; b++) {
        SeaweedObjectStore s = store();
        stores.add(s);
        ProducerIdAllocator ids = new ProducerIdAllocator(s);
        taken.add(
            pool.submit(
                () -> {
                  List<Long> mine = new ArrayList<>();
                  for (int i = 0; i < perBroker; i++) {
                    mine.add(ids.allocate());
                  }
                  return mine;
                }));
      }
      Set<Long> all = new HashSet<>();
      for (Future<List<Long>> f : taken) {
        for (long id : f.get(120, TimeUnit.SECONDS)) {
          assertTrue(all.add(id), "producer id " + id + " was handed out twice");
        }
      }
      assertEquals(brokers * perBroker, all.size());
      // A broker started afterwards continues past every block reserved so far.
      try (SeaweedObjectStore later = store()) {
        long next = new ProducerIdAllocator(later).allocate();
        assertTrue(next > Collections.max(all), next + " is not past " + Collections.max(all));
      }
    } finally {
      pool.shutdownNow();
      for (SeaweedObjectStore s : stores) {
        s.close();
      }
    }
  }

  /** Whether a claim of {@code epoch} got it; false if it was fenced. */
  private static boolean won(Future<Long> claim, long epoch) throws Exception {
    try {
      assertEquals(epoch, (long) claim.get());
      return true;
    } catch (ExecutionException e) {
      assertInstanceOf(FencedException.class, e.getCause());
      return false;
    }
  }

  @Test
  void entriesKeptForReadsNeverServeBytesThatChanged() throws Exception {
    String path = "/kept/00000000000000000000.log";
    Random random = new Random(5);
    byte[] first = new byte[200 << 10];
    byte[] second = new byte[100 << 10];
    byte[] third = new byte[150 << 10];
    random.nextBytes(first);
    random.nextBytes(second);
    random.nextBytes(third);
    try (SeaweedObjectStore reader = store();
        SeaweedObjectStore writer = store()) {
      writer.append(path, Unpooled.wrappedBuffer(first), null);
      assertEquals(1, reader.list("/kept").size()); // the reader keeps the listed entry
      assertArrayEquals(first, readAll(reader, path, first.length));
      // Another store appends: a read past what the reader knew looks the entry up again.
      writer.append(path, Unpooled.wrappedBuffer(second), null);
      byte[] both = new byte[first.length + second.length];
      System.arraycopy(first, 0, both, 0, first.length);
      System.arraycopy(second, 0, both, first.length, second.length);
      assertArrayEquals(both, readAll(reader, path, both.length));
      // The reader replaces the object whole: its reads see the new bytes, not the kept entry's.
      reader.put(path, Unpooled.wrappedBuffer(third), null);
      assertArrayEquals(third, readAll(reader, path, third.length));
      reader.delete(path);
      assertThrows(NoSuchFileException.class, () -> reader.read(path, 0, 10));
    }
  }

  private static byte[] readAll(SeaweedObjectStore store, String path, int length)
      throws IOException {
    ByteBuf back = store.read(path, 0, length + 1);
    try {
      return ByteBufUtil.getBytes(back);
    } finally {
      back.release();
    }
  }

  @Test
  void largeObjectsOfManyChunksReadBackAtAnyRange() throws Exception {
    byte[] data = new byte[20 << 20];
    new Random(11).nextBytes(data);
    try (SeaweedObjectStore store = store()) {
      // One append larger than a chunk, then many small ones.
      store.append("/big/many.log", Unpooled.wrappedBuffer(data, 0, 18 << 20), null);
      int small = 64 << 10;
      for (int off = 18 << 20; off < data.length; off += small) {
        store.append("/big/many.log", Unpooled.wrappedBuffer(data, off, small), null);
      }
      store.put("/big/whole.bin", Unpooled.wrappedBuffer(data), null);
      assertEquals(data.length, store.stat("/big/many.log").orElseThrow().size());
      Random r = new Random(3);
      for (String path : List.of("/big/many.log", "/big/whole.bin")) {
        for (int i = 0; i < 20; i++) {
          int from = r.nextInt(data.length);
          int len = r.nextInt(3 << 20);
          ByteBuf part = store.read(path, from, len);
          try {
            int end = Math.min(data.length, from + len);
            assertArrayEquals(Arrays.copyOfRange(data, from, end), ByteBufUtil.getBytes(part));
          } finally {
            part.release();
          }
        }
      }
    }
  }

  @Test
  void twoWritersOfOneObjectLoseNothingThroughStaleEntries() throws Exception {
    String path = "/shared/object.log";
    try (SeaweedObjectStore a = store();
        SeaweedObjectStore b = store()) {
      a.append(path, Unpooled.wrappedBuffer(new byte[] {'a'}), null);
      b.append(path, Unpooled.wrappedBuffer(new byte[] {'b'}), null);
      // a's own view of the entry still ends at "a": its append must not drop "b".
      a.append(path, Unpooled.wrappedBuffer(new byte[] {'c'}), null);
      b.append(path, Unpooled.wrappedBuffer(new byte[] {'d'}), null);
      ByteBuf back = a.read(path, 0, 100);
      try {
        assertEquals("abcd", back.toString(StandardCharsets.US_ASCII));
      } finally {
        back.release();
      }
    }
  }

  @Test
  void smallAppendsStayInTheEntryUntilTheLimitThenMoveToChunksWithoutLosingAWriter()
      throws Exception {
    String path = "/kelp/groups/g/log.0000000001.000000";
    byte[] big = new byte[SeaweedObjectStore.INLINE_LIMIT];
    new Random(7).nextBytes(big);
    try (SeaweedObjectStore a = store();
        SeaweedObjectStore b = store();
        FilerClient filer = new FilerClient(weed.filerAddress(), Duration.ofSeconds(10))) {
      a.append(path, Unpooled.wrappedBuffer(new byte[] {'a'}), null);
      b.append(path, Unpooled.wrappedBuffer(new byte[] {'b'}), null);
      a.append(path, Unpooled.wrappedBuffer(new byte[] {'c'}), null); // a's view is stale
      var entry = filer.lookup("/kelp/groups/g", "log.0000000001.000000").orElseThrow();
      assertEquals("abc", entry.getContent().toStringUtf8(), "kept in the entry");
      assertEquals(0, entry.getChunksCount());
      // b's view ends at "b"; its append passes the limit, so the content becomes a chunk
      b.append(path, Unpooled.wrappedBuffer(big), null);
      entry = filer.lookup("/kelp/groups/g", "log.0000000001.000000").orElseThrow();
      assertTrue(entry.getContent().isEmpty(), "content moved to chunks");
      assertTrue(entry.getChunksCount() >= 2);
      // a's view still has inline content: its small append must go after b's chunks
      a.append(path, Unpooled.wrappedBuffer(new byte[] {'d'}), null);
      ByteBuf back = b.read(path, 0, big.length + 100);
      try {
        byte[] expected = new byte[big.length + 4];
        expected[0] = 'a';
        expected[1] = 'b';
        expected[2] = 'c';
        System.arraycopy(big, 0, expected, 3, big.length);
        expected[expected.length - 1] = 'd';
        assertArrayEquals(expected, ByteBufUtil.getBytes(back));
      } finally {
        back.release();
      }
    }
  }

  @Test
  void theStartUpCheckNamesTheVolumeServerAndFailsWithoutOne() throws Exception {
    try (SeaweedObjectStore store =
        new SeaweedObjectStore(
            weed.filerAddress(), "", "", Duration.ofSeconds(2), PooledByteBufAllocator.DEFAULT)) {
      FileIdPool.FileId chunk = store.checkVolumeChunk();
      assertEquals(weed.volumeAddress(), chunk.url());
      // The test chunk was deleted again.
      IOException gone =
          assertThrows(
              IOException.class,
              () ->
                  new VolumeClient(true, PooledByteBufAllocator.DEFAULT)
                      .read(chunk.url(), chunk.uploadId(), 0, 4));
      assertTrue(gone.getMessage().contains("HTTP 404"), gone.getMessage());
      assertEquals(weed.volumeAddress(), store.checkVolumes());
      weed.stop();
      assertThrows(IOException.class, store::checkVolumes);
    }
  }

  /** Prints the latency of durable 64 KiB appends; measures, asserts nothing about time. */
  @Test
  void durableAppendLatency() throws Exception {
    byte[] data = new byte[64 << 10];
    new Random(5).nextBytes(data);
    int n = Integer.getInteger("kelp.latency.appends", 1000);
    long[] nanos = new long[n];
    try (SeaweedObjectStore store = store()) {
      for (int i = 0; i < 50; i++) {
        store.append("/latency/warmup.log", Unpooled.wrappedBuffer(data), null);
      }
      for (int i = 0; i < n; i++) {
        // A segment rolls every 256 appends, as a partition log's segments would.
        String path = "/latency/" + (i / 256) + ".log";
        long start = System.nanoTime();
        store.append(path, Unpooled.wrappedBuffer(data), null);
        nanos[i] = System.nanoTime() - start;
      }
    }
    Arrays.sort(nanos);
    System.out.printf(
        "durable 64 KiB append on SeaweedFS: p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d%n",
        nanos[n / 2] / 1e6, nanos[n * 99 / 100] / 1e6, nanos[n - 1] / 1e6, n);
  }
}
