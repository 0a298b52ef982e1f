package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.kelp.codec.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

class LogCacheTest {

  /** One cached range holding one batch with offsets [base, base + 10). */
  private static ByteBuf range(long base) {
    ByteBuf b = Batches.batch("r", 10, 1000);
    RecordBatch.at(b, 0).setBaseOffset(base);
    return b;
  }

  private static void release(ReadPiece piece) {
    if (piece != null && piece.data() != null) {
      piece.data().release();
    }
  }

  @Test
  void rangesReadToTheirEndAreEvictedBeforeUnreadOnes() {
    int size = range(0).readableBytes();
    TailCacheBudget budget = new TailCacheBudget(3L * size);
    LogCache cache = new LogCache(budget);
    release(cache.addAndRead(range(0), -1, Long.MAX_VALUE, Integer.MAX_VALUE, false, true));
    release(cache.addAndRead(range(10), -1, Long.MAX_VALUE, Integer.MAX_VALUE, false, true));
    release(cache.addAndRead(range(20), -1, Long.MAX_VALUE, Integer.MAX_VALUE, false, true));
    // A consumer reads the middle range to its end; the oldest range is still unread.
    release(cache.read(10, Long.MAX_VALUE, Integer.MAX_VALUE, false));

    release(cache.addAndRead(range(30), -1, Long.MAX_VALUE, Integer.MAX_VALUE, false, true));

    ReadPiece oldest = cache.read(0, Long.MAX_VALUE, Integer.MAX_VALUE, false);
    assertNotNull(oldest, "the unread oldest range was evicted instead of the one already read");
    release(oldest);
    assertNull(cache.read(10, Long.MAX_VALUE, Integer.MAX_VALUE, false));
    ReadPiece newest = cache.read(30, Long.MAX_VALUE, Integer.MAX_VALUE, false);
    assertNotNull(newest);
    release(newest);
  }

  /**
   * Reads the log [0, 10 * ranges) from the start as a consumer would: from the cache, and on a
   * miss from "the store" (a new range of the same offsets). Returns how many store reads it took.
   */
  private static int readAll(LogCache cache, int ranges) {
    int storeReads = 0;
    for (long offset = 0; offset < 10L * ranges; offset += 10) {
      ReadPiece piece = cache.read(offset, Long.MAX_VALUE, Integer.MAX_VALUE, false);
      if (piece == null) {
        storeReads++;
        piece =
            cache.addStoreReadAndRead(
                range(offset), offset, Long.MAX_VALUE, Integer.MAX_VALUE, false);
      }
      assertEquals(offset + 10, piece.nextOffset(), "read at " + offset);
      release(piece);
    }
    return storeReads;
  }

  @Test
  void aSecondScanFromTheStartKeepsTheTailItIsAboutToReach() {
    int size = range(0).readableBytes();
    TailCacheBudget budget = new TailCacheBudget(4L * size);
    LogCache cache = new LogCache(budget);
    // Six ranges written; the cache holds the last four.
    for (long base = 0; base < 60; base += 10) {
      release(cache.addAndRead(range(base), -1, Long.MAX_VALUE, Integer.MAX_VALUE, false, true));
    }
    // A first consumer reads the whole log: the first two ranges from the store, and the oldest
    // cached range, pushed out by the first of them (nothing had been read through yet).
    assertEquals(3, readAll(cache, 6));

    // A second consumer does the same. Each store read may push out one range, but only ranges
    // already read from the store, once there are any: the cached tail stays for it to reach.
    int second = readAll(cache, 6);
    assertEquals(3, second, "store reads of the second scan (6 means each evicted the next range)");
    assertEquals(3, readAll(cache, 6), "store reads of a third scan");
  }
}
