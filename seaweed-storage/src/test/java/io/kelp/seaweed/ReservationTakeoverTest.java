package io.kelp.seaweed;

import static io.kelp.seaweed.StoreText.readAll;
import static io.kelp.seaweed.StoreText.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kelp.engine.store.Fence;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fenced appends return once their chunk is uploaded to an id the entry reserved, and are listed
 * later: a writer that stops before listing them loses nothing it acknowledged, and a writer that
 * goes on after another took over lands nothing.
 */
class ReservationTakeoverTest {
  private static WeedProcess weed;

  @BeforeAll
  static void start() throws Exception {
    weed = WeedProcess.start();
  }

  @AfterAll
  static void stop() throws Exception {
    weed.close();
  }

  private static SeaweedObjectStore store() {
    return new SeaweedObjectStore(
        weed.filerAddress(), "", "", Duration.ofSeconds(5), PooledByteBufAllocator.DEFAULT);
  }

  @Test
  void appendsAcknowledgedButNotListedAreFoundByTheNextOwner() throws Exception {
    String dir = "/topics/kafka/takeover/v1/0000-0001";
    String log = dir + "/0.log";
    StringBuilder expected = new StringBuilder();
    SeaweedObjectStore first = store();
    assertEquals(1, first.claim(dir, 1));
    for (int i = 0; i < 5; i++) {
      String piece = "record-" + i + ";";
      first.append(log, text(piece), new Fence(dir, 1));
      expected.append(piece);
    }
    assertEquals(expected.toString(), readAll(first, log), "the writer reads what it appended");
    // The first writer stops without listing anything more (as a killed broker would).
    try (SeaweedObjectStore second = store()) {
      assertEquals(2, second.claim(dir, 2));
      assertEquals(expected.toString(), readAll(second, log));
      assertEquals(expected.length(), second.stat(log).orElseThrow().size());
      second.append(log, text("after;"), new Fence(dir, 2));
      assertEquals(expected + "after;", readAll(second, log));
    }
    first.close();
  }

  /**
   * A clean close lists what it uploaded, so a store that reads without claiming (SeaweedFS's own
   * tools, in effect) sees every byte; the next owner finds no reservation left to settle and
   * appends after them.
   */
  @Test
  void aCleanCloseListsEveryAppendForReadersThatDoNotClaim() throws Exception {
    String dir = "/topics/kafka/takeover/v1/0000-0006";
    String log = dir + "/0.log";
    String other = dir + "/1.log";
    StringBuilder expected = new StringBuilder();
    try (SeaweedObjectStore first = store()) {
      assertEquals(1, first.claim(dir, 1));
      first.append(other, text("other;"), new Fence(dir, 1));
      // 40 appends: past one reservation, so the last ones are in no entry yet.
      for (int i = 0; i < 40; i++) {
        String piece = "record-" + i + ";";
        first.append(log, text(piece), new Fence(dir, 1));
        expected.append(piece);
      }
    }
    try (SeaweedObjectStore reader = store()) {
      assertEquals(expected.toString(), readAll(reader, log));
      assertEquals(expected.length(), reader.stat(log).orElseThrow().size());
      assertEquals("other;", readAll(reader, other));
    }
    try (SeaweedObjectStore next = store()) {
      assertEquals(2, next.claim(dir, 2));
      next.append(log, text("after;"), new Fence(dir, 2));
      assertEquals(expected + "after;", readAll(next, log));
    }
  }

  /**
   * Publishing lists what a writer uploaded and not listed yet, while it goes on writing: a store
   * that reads without claiming sees every byte appended before the publish, the writer's later
   * appends follow them in order, and the next owner reads everything exactly once.
   */
  @Test
  void publishingShowsEveryAppendToReadersThatDoNotClaimAndTheWriterGoesOn() throws Exception {
    String dir = "/topics/kafka/takeover/v1/0000-0007";
    String log = dir + "/0.log";
    StringBuilder expected = new StringBuilder();
    try (SeaweedObjectStore writer = store();
        SeaweedObjectStore reader = store()) {
      assertEquals(1, writer.claim(dir, 1));
      Fence fence = new Fence(dir, 1);
      for (int i = 0; i < 5; i++) {
        String piece = "before-" + i + ";";
        writer.append(log, text(piece), fence);
        expected.append(piece);
      }
      assertEquals("", readAll(reader, log), "uploaded, not listed yet");
      writer.publish(log, fence);
      assertEquals(expected.toString(), readAll(reader, log));
      writer.publish(log, fence); // nothing more to list
      for (int i = 0; i < 3; i++) {
        String piece = "after-" + i + ";";
        writer.append(log, text(piece), fence);
        expected.append(piece);
      }
      assertEquals(expected.toString(), readAll(writer, log));
      // The writer stops here without listing the last three (as a killed broker would).
    }
    try (SeaweedObjectStore next = store()) {
      assertEquals(2, next.claim(dir, 2));
      assertEquals(expected.toString(), readAll(next, log));
      assertEquals(expected.length(), next.stat(log).orElseThrow().size());
    }
  }

  @Test
  void aWriterThatGoesOnAfterATakeoverLandsNothing() throws Exception {
    String dir = "/topics/kafka/takeover/v1/0000-0002";
    String log = dir + "/0.log";
    try (SeaweedObjectStore first = store();
        SeaweedObjectStore second = store()) {
      assertEquals(1, first.claim(dir, 1));
      first.append(log, text("a;"), new Fence(dir, 1));
      first.append(log, text("b;"), new Fence(dir, 1));
      assertEquals(2, second.claim(dir, 2));
      // The next reserved id is closed off: its upload is refused, and reserving anew is fenced.
      assertThrows(IOException.class, () -> first.append(log, text("late;"), new Fence(dir, 1)));
      assertEquals("a;b;", readAll(second, log));
      second.append(log, text("c;"), new Fence(dir, 2));
      assertEquals("a;b;c;", readAll(second, log));
      try (SeaweedObjectStore third = store()) {
        assertEquals(3, third.claim(dir, 3));
        assertEquals("a;b;c;", readAll(third, log));
      }
    }
  }

  @Test
  void anAppendWhoseVolumeServerIsGoneReturnsOnceItIsBackAndIsListedOnce() throws Exception {
    try (WeedProcess own = WeedProcess.startWithSeparateVolumeServer()) {
      String dir = "/topics/kafka/takeover/v1/0000-0004";
      String log = dir + "/0.log";
      SeaweedObjectStore first =
          new SeaweedObjectStore(
              own.filerAddress(), "", "", Duration.ofSeconds(60), PooledByteBufAllocator.DEFAULT);
      assertEquals(1, first.claim(dir, 1));
      first.append(log, text("first;"), new Fence(dir, 1));
      own.killVolume();
      CompletableFuture<Void> second =
          CompletableFuture.runAsync(
              () -> {
                try {
                  first.append(log, text("second;"), new Fence(dir, 1));
                } catch (IOException e) {
                  throw new CompletionException(e);
                }
              });
      Thread.sleep(2000);
      assertFalse(second.isDone(), "the append waits for a volume server");
      own.startVolume();
      second.get(60, TimeUnit.SECONDS);
      first.append(log, text("third;"), new Fence(dir, 1));
      assertEquals("first;second;third;", readAll(first, log));
      try (SeaweedObjectStore next =
          new SeaweedObjectStore(
              own.filerAddress(), "", "", Duration.ofSeconds(60), PooledByteBufAllocator.DEFAULT)) {
        assertEquals(2, next.claim(dir, 2));
        assertEquals("first;second;third;", readAll(next, log));
      }
      first.close();
    }
  }

  @Test
  void theOwnerCheckingItsClaimKeepsItsReservation() throws Exception {
    String dir = "/topics/kafka/takeover/v1/0000-0005";
    String log = dir + "/0.log";
    try (SeaweedObjectStore first = store();
        FilerClient filer = new FilerClient(weed.filerAddress(), Duration.ofSeconds(10))) {
      assertEquals(1, first.claim(dir, 1));
      first.append(log, text("a;"), new Fence(dir, 1));
      first.append(log, text("b;"), new Fence(dir, 1));
      // The engine checks its ownership before deleting: the same epoch, by the same store.
      assertEquals(1, first.claim(dir, 1));
      first.append(log, text("c;"), new Fence(dir, 1));
      assertEquals("a;b;c;", readAll(first, log));
      assertEquals(
          0,
          filer.lookup(dir, "0.log").orElseThrow().getChunksCount(),
          "all three went to the first reservation, none listed yet");
      try (SeaweedObjectStore second = store()) {
        assertEquals(2, second.claim(dir, 2));
        assertEquals("a;b;c;", readAll(second, log));
      }
    }
  }

  @Test
  void appendsPastSeveralReservationsComeBackInOrderOnce() throws Exception {
    String dir = "/topics/kafka/takeover/v1/0000-0003";
    String log = dir + "/0.log";
    String other = dir + "/100.log";
    StringBuilder expected = new StringBuilder();
    StringBuilder expectedOther = new StringBuilder();
    SeaweedObjectStore first = store();
    assertEquals(1, first.claim(dir, 1));
    int n = ReservedAppender.RESERVED_IDS * 2 + 3;
    for (int i = 0; i < n; i++) {
      String piece = i + ",";
      first.append(log, text(piece), new Fence(dir, 1));
      expected.append(piece);
    }
    // The engine rolls to a new object: the old one's last chunks are listed on the way.
    for (int i = 0; i < 3; i++) {
      String piece = "o" + i + ",";
      first.append(other, text(piece), new Fence(dir, 1));
      expectedOther.append(piece);
    }
    assertEquals(expected.toString(), readAll(first, log));
    try (SeaweedObjectStore second = store()) {
      assertEquals(2, second.claim(dir, 2));
      assertEquals(expected.toString(), readAll(second, log));
      assertEquals(expectedOther.toString(), readAll(second, other));
    }
    first.close();
  }
}
