package io.kelp.engine.log;

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
}
