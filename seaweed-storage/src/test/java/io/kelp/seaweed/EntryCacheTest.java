package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import org.junit.jupiter.api.Test;

class EntryCacheTest {

  private static Entry entry(String name, int chunks) {
    Entry.Builder b = Entry.newBuilder().setName(name);
    for (int i = 0; i < chunks; i++) {
      b.addChunks(FileChunk.newBuilder().setFileId("3," + i + "abcdef01").setOffset(i * 1000L));
    }
    return b.build();
  }

  @Test
  void keepsTheSerializedSizeOfItsEntriesWithinTheBudget() {
    long one = entry("a", 100).getSerializedSize();
    EntryCache cache = new EntryCache(1000, one * 3);
    for (String p : new String[] {"/d/a", "/d/b", "/d/c", "/d/e"}) {
      cache.put(p, entry(p.substring(3), 100));
    }
    assertTrue(cache.bytes() <= one * 3, "bytes " + cache.bytes() + " over " + one * 3);
    assertEquals(3, cache.size());
    assertFalse(cache.get("/d/a").isPresent(), "the least recently used entry goes first");
    assertTrue(cache.get("/d/e").isPresent());
  }

  @Test
  void keepsAtMostMaxEntriesAndDropsTheLeastRecentlyUsed() {
    EntryCache cache = new EntryCache(2, Long.MAX_VALUE);
    cache.put("/a", entry("a", 1));
    cache.put("/b", entry("b", 1));
    cache.get("/a");
    cache.put("/c", entry("c", 1));
    assertTrue(cache.get("/a").isPresent());
    assertFalse(cache.get("/b").isPresent());
    assertTrue(cache.get("/c").isPresent());
  }

  @Test
  void anEntryLargerThanTheBudgetIsNotKeptAndReplacesNoneOfTheOthers() {
    EntryCache cache = new EntryCache(10, entry("x", 10).getSerializedSize() * 2L);
    cache.put("/small", entry("small", 1));
    cache.put("/big", entry("big", 1));
    cache.put("/big", entry("big", 500)); // grew past the budget: the stale one must go too
    assertFalse(cache.get("/big").isPresent());
    assertTrue(cache.get("/small").isPresent());
    assertEquals(entry("small", 1).getSerializedSize(), cache.bytes());
  }

  @Test
  void replacingAndForgettingKeepTheByteCountExact() {
    EntryCache cache = new EntryCache(10, Long.MAX_VALUE);
    cache.put("/t/p/a", entry("a", 5));
    cache.put("/t/p/a", entry("a", 7));
    cache.put("/t/p/b", entry("b", 3));
    cache.put("/t/q", entry("q", 2));
    assertEquals(
        entry("a", 7).getSerializedSize()
            + entry("b", 3).getSerializedSize()
            + entry("q", 2).getSerializedSize(),
        cache.bytes());
    cache.forgetTree("/t/p");
    assertEquals(entry("q", 2).getSerializedSize(), cache.bytes());
    cache.forget("/t/q");
    cache.forget("/t/missing");
    assertEquals(0, cache.bytes());
    assertEquals(0, cache.size());
  }
}
