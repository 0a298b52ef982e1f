package io.kelp.engine.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ObjectStore} must do. Each store's test extends this class and supplies a
 * fresh, empty store.
 */
public abstract class ObjectStoreContractTest {
  protected ObjectStore store;

  /** A new store over an empty tree. */
  protected abstract ObjectStore newStore() throws Exception;

  @BeforeEach
  void open() throws Exception {
    store = newStore();
  }

  @AfterEach
  void closeStore() throws Exception {
    store.close();
  }

  private static ByteBuf text(String s) {
    return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
  }

  private String readAll(String path) throws Exception {
    long size = store.stat(path).orElseThrow().size();
    ByteBuf b = store.read(path, 0, (int) size);
    try {
      return b.toString(StandardCharsets.UTF_8);
    } finally {
      b.release();
    }
  }

  @Test
  void appendCreatesParentsAndAccumulates() throws Exception {
    store.append("/a/b/c.log", text("hello "), null);
    store.append("/a/b/c.log", text("world"), null);
    assertEquals("hello world", readAll("/a/b/c.log"));
    assertEquals(11, store.stat("/a/b/c.log").orElseThrow().size());
    assertTrue(store.stat("/a/b").orElseThrow().directory());
  }

  @Test
  void appendDoesNotConsumeOrReleaseTheCallersBuffer() throws Exception {
    ByteBuf data = text("keep");
    store.append("/x.log", data, null);
    assertEquals(4, data.readableBytes());
    assertEquals(1, data.refCnt());
  }

  @Test
  void readReturnsRangesAndStopsAtTheEnd() throws Exception {
    store.append("/r.log", text("0123456789"), null);
    ByteBuf middle = store.read("/r.log", 3, 4);
    assertEquals("3456", middle.toString(StandardCharsets.UTF_8));
    middle.release();
    ByteBuf tail = store.read("/r.log", 8, 100);
    assertEquals("89", tail.toString(StandardCharsets.UTF_8));
    tail.release();
    ByteBuf past = store.read("/r.log", 50, 10);
    assertEquals(0, past.readableBytes());
    past.release();
  }

  @Test
  void readingAMissingObjectFails() {
    assertThrows(NoSuchFileException.class, () -> store.read("/nope.log", 0, 10));
  }

  @Test
  void putReplacesWholeObjects() throws Exception {
    store.put("/meta/topic.json", text("{\"v\":1}"), null);
    store.put("/meta/topic.json", text("{\"v\":22}"), null);
    assertEquals("{\"v\":22}", readAll("/meta/topic.json"));
  }

  @Test
  void emptyObjectsCanBeWrittenAndRead() throws Exception {
    store.put("/e/empty.log", Unpooled.EMPTY_BUFFER, null);
    assertEquals(0, store.stat("/e/empty.log").orElseThrow().size());
    ByteBuf none = store.read("/e/empty.log", 0, 10);
    assertEquals(0, none.readableBytes());
    none.release();
    store.append("/e/empty.log", Unpooled.EMPTY_BUFFER, null);
    store.append("/e/empty.log", text("x"), null);
    assertEquals("x", readAll("/e/empty.log"));
  }

  @Test
  void compositeBuffersAreWrittenInOrder() throws Exception {
    io.netty.buffer.CompositeByteBuf parts = Unpooled.compositeBuffer();
    parts.addComponent(true, text("one "));
    parts.addComponent(true, text("two "));
    parts.addComponent(true, text("three"));
    store.append("/c/parts.log", parts, null);
    store.put("/c/parts.json", parts, null);
    assertEquals("one two three", readAll("/c/parts.log"));
    assertEquals("one two three", readAll("/c/parts.json"));
    assertEquals(13, parts.readableBytes());
    parts.release();
  }

  @Test
  void listIsSortedAndShowsDirectories() throws Exception {
    store.append("/d/b.log", text("b"), null);
    store.append("/d/a.log", text("aa"), null);
    store.put("/d/sub/x", text("x"), null);
    List<ObjectInfo> list = store.list("/d");
    assertEquals(
        List.of(
            new ObjectInfo("a.log", false, 2),
            new ObjectInfo("b.log", false, 1),
            new ObjectInfo("sub", true, 0)),
        list);
    assertEquals(List.of(), store.list("/missing"));
  }

  @Test
  void deleteRemovesTreesAndIgnoresMissingPaths() throws Exception {
    store.append("/t/p/0.log", text("data"), null);
    store.put("/t/p/meta", text("m"), null);
    store.delete("/t");
    assertFalse(store.stat("/t").isPresent());
    assertFalse(store.stat("/t/p/0.log").isPresent());
    store.delete("/t");
    store.append("/t/p/0.log", text("again"), null);
    assertEquals("again", readAll("/t/p/0.log"));
  }

  @Test
  void largeAppendsReadBackExactly() throws Exception {
    byte[] data = new byte[3 << 20];
    new Random(7).nextBytes(data);
    store.append("/big.log", Unpooled.wrappedBuffer(data, 0, 1 << 20), null);
    store.append("/big.log", Unpooled.wrappedBuffer(data, 1 << 20, 2 << 20), null);
    ByteBuf back = store.read("/big.log", 0, data.length);
    try {
      assertArrayEquals(data, ByteBufUtil.getBytes(back));
    } finally {
      back.release();
    }
  }

  @Test
  void rangesAcrossManyAppendsReadBackExactly() throws Exception {
    String dir = "/topics/kafka/ranges/v1/0000-2520";
    store.claim(dir, 1);
    int[] sizes = {5_000, 70_000, 300, 130_000, 17, 2_000};
    byte[] all = new byte[Arrays.stream(sizes).sum()];
    new Random(11).nextBytes(all);
    int at = 0;
    for (int size : sizes) {
      store.append(dir + "/0.log", Unpooled.wrappedBuffer(all, at, size), new Fence(dir, 1));
      at += size;
    }
    int n = all.length;
    int[][] ranges = {
      {0, n},
      {4_990, 20},
      {4_999, 70_002},
      {100, n - 200},
      {n - 10, 100},
      {75_000, 1},
      {75_150, 131_000}
    };
    for (int round = 0; round < 2; round++) {
      // The second round reads what the first may have left in a store's caches.
      for (int[] r : ranges) {
        ByteBuf back = store.read(dir + "/0.log", r[0], r[1]);
        try {
          int expected = Math.min(r[1], n - r[0]);
          assertEquals(expected, back.readableBytes(), "bytes read at " + r[0]);
          assertArrayEquals(
              Arrays.copyOfRange(all, r[0], r[0] + expected),
              ByteBufUtil.getBytes(back),
              "bytes at " + r[0]);
        } finally {
          back.release();
        }
      }
    }
  }

  @Test
  void concurrentAppendsToDifferentObjectsAllLand() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int id = t;
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    store.append("/c/" + id + ".log", text("x"), null);
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
    for (int t = 0; t < 8; t++) {
      assertEquals(50, store.stat("/c/" + t + ".log").orElseThrow().size());
    }
  }

  @Test
  void claimsOnlyMoveForwardAndFenceOlderWriters() throws Exception {
    String dir = "/topics/kafka/t/v1/0000-2520";
    assertEquals(3, store.claim(dir, 3));
    store.append(dir + "/0.log", text("a"), new Fence(dir, 3));
    assertEquals(3, store.claim(dir, 2), "a lower epoch does not take over");
    assertEquals(5, store.claim(dir, 5));
    assertThrows(
        FencedException.class, () -> store.append(dir + "/0.log", text("b"), new Fence(dir, 3)));
    assertThrows(
        FencedException.class, () -> store.put(dir + "/meta", text("b"), new Fence(dir, 3)));
    store.append(dir + "/0.log", text("c"), new Fence(dir, 5));
    assertEquals("ac", readAll(dir + "/0.log"));
  }

  @Test
  void claimsSurviveReopening() throws Exception {
    String dir = "/p";
    store.claim(dir, 9);
    store.close();
    store = reopen();
    assertEquals(9, store.claim(dir, 4));
    assertThrows(
        FencedException.class, () -> store.append(dir + "/x", text("b"), new Fence(dir, 4)));
  }

  /** The same store again, as after a restart. */
  protected abstract ObjectStore reopen() throws Exception;
}
