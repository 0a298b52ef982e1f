package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ChunkCacheTest {
  private static ByteBuf chunk(int size, int fill) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(size);
    for (int i = 0; i < size; i++) {
      b.writeByte(fill);
    }
    return b;
  }

  /** Puts a new chunk as a reader does: it keeps, then drops, its own reference. */
  private static ByteBuf put(ChunkCache cache, String fileId, int fill) {
    ByteBuf b = chunk(1000, fill);
    cache.put(fileId, b);
    b.release();
    return b;
  }

  @Test
  void chunksLeavingTheCacheAreReleasedAndOnesHandedOutStayValid() {
    ChunkCache cache = new ChunkCache(4000);
    ByteBuf a = put(cache, "1,a", 'a');
    ByteBuf b = put(cache, "1,b", 'b');
    ByteBuf c = put(cache, "1,c", 'c');
    ByteBuf readA = cache.get("1,a"); // a reader holds "a"; "b" is now the least recently used
    put(cache, "1,d", 'd');
    assertEquals(4000, cache.bytes());
    put(cache, "1,e", 'e'); // over the budget
    assertNull(cache.get("1,b"));
    assertEquals(0, b.refCnt(), "an evicted chunk's buffer is released");
    assertEquals(4000, cache.bytes());

    put(cache, "1,f", 'f'); // "c" goes
    put(cache, "1,g", 'g'); // "a" goes, while its reader still holds it
    assertEquals(0, c.refCnt());
    assertNull(cache.get("1,a"));
    byte[] expected = new byte[1000];
    Arrays.fill(expected, (byte) 'a');
    assertArrayEquals(expected, ByteBufUtil.getBytes(readA), "a reader's reference outlives it");
    readA.release();
    assertEquals(0, a.refCnt());

    ByteBuf g = cache.get("1,g");
    cache.clear();
    assertEquals(1, g.refCnt(), "only the reader's reference is left");
    g.release();
    assertEquals(0, cache.bytes());
  }

  @Test
  void aChunkOverAQuarterOfTheBudgetIsNotKept() {
    ChunkCache cache = new ChunkCache(4000);
    ByteBuf big = chunk(1001, 'x');
    cache.put("1,x", big);
    assertNull(cache.get("1,x"));
    assertEquals(1, big.refCnt());
    big.release();
  }
}
