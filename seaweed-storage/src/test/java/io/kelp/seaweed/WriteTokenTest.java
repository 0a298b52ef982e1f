package io.kelp.seaweed;

import static io.kelp.seaweed.StoreText.readAll;
import static io.kelp.seaweed.StoreText.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Volume servers that take writes only with a token (a {@code jwt.signing} key in weed's {@code
 * security.toml}): every assignment carries a JWT, a file id cannot be closed off without one, so
 * fenced appends are listed by a filer transaction each instead of through reserved ids.
 */
class WriteTokenTest {
  private static SeaweedObjectStore store(WeedProcess weed) {
    return new SeaweedObjectStore(
        weed.filerAddress(), "", "", Duration.ofSeconds(5), PooledByteBufAllocator.DEFAULT);
  }

  @Test
  void fencedAppendsAreListedAsTheyReturnAndStaleWritersAreFenced() throws Exception {
    try (WeedProcess weed = WeedProcess.startWithWriteTokens();
        SeaweedObjectStore writer = store(weed);
        SeaweedObjectStore reader = store(weed);
        SeaweedObjectStore next = store(weed)) {
      assertTrue(weed.assignsWriteTokens());
      String dir = "/topics/kafka/tokens/v1/0000-0001";
      String log = dir + "/0.log";
      assertEquals(1, writer.claim(dir, 1));
      StringBuilder expected = new StringBuilder();
      for (int i = 0; i < ReservedAppender.RESERVED_IDS + 4; i++) {
        String piece = "record-" + i + ";";
        writer.append(log, text(piece), new Fence(dir, 1));
        expected.append(piece);
        // A store that never claimed the directory sees what the entry lists: each append is
        // listed by the time it returns.
        assertEquals(expected.toString(), readAll(reader, log), "after append " + i);
      }
      byte[] big = new byte[200 * 1024];
      new Random(7).nextBytes(big);
      writer.put(dir + "/big", Unpooled.wrappedBuffer(big), new Fence(dir, 1));
      ByteBuf back = reader.read(dir + "/big", 0, big.length);
      try {
        assertEquals(Unpooled.wrappedBuffer(big), back, "a put of chunks uploaded with tokens");
      } finally {
        back.release();
      }

      assertEquals(2, next.claim(dir, 2));
      assertThrows(
          FencedException.class, () -> writer.append(log, text("stale;"), new Fence(dir, 1)));
      next.append(log, text("after;"), new Fence(dir, 2));
      assertEquals(expected + "after;", readAll(reader, log));
    }
  }

  @Test
  void appendsToIdsReservedBeforeTokensWereRequiredAreKeptByTheNextOwner() throws Exception {
    try (WeedProcess weed = WeedProcess.start();
        SeaweedObjectStore first = store(weed)) {
      assertFalse(weed.assignsWriteTokens());
      String dir = "/topics/kafka/tokens-later/v1/0000-0001";
      String log = dir + "/0.log";
      assertEquals(1, first.claim(dir, 1));
      StringBuilder expected = new StringBuilder();
      for (int i = 0; i < 5; i++) {
        String piece = "record-" + i + ";";
        first.append(log, text(piece), new Fence(dir, 1));
        expected.append(piece);
      }
      // The first writer's ids were reserved without tokens, and it stops listing them (as a
      // broker killed while SeaweedFS restarts with tokens required would).
      weed.requireWriteTokens();
      weed.restart();
      assertTrue(weed.assignsWriteTokens());
      try (SeaweedObjectStore second = store(weed);
          SeaweedObjectStore reader = store(weed)) {
        assertEquals(2, second.claim(dir, 2), "the claim settles ids it cannot close off");
        assertEquals(expected.toString(), readAll(second, log));
        assertEquals(expected.toString(), readAll(reader, log), "listed by the claim");
        assertThrows(
            FencedException.class, () -> first.append(log, text("stale;"), new Fence(dir, 1)));
        second.append(log, text("after;"), new Fence(dir, 2));
        assertEquals(expected + "after;", readAll(reader, log));
      }
    }
  }
}
