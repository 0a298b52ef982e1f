package io.kelp.seaweed;

import static io.kelp.seaweed.StoreText.readAll;
import static io.kelp.seaweed.StoreText.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.store.Fence;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A fenced append uploads its chunk while the filer transaction that lists it runs: what happens
 * when the volume server is gone and the filer is not, so the entry lists a chunk that was never
 * stored.
 */
class SeaweedUploadFaultTest {
  private static final String DIR = "/topics/kafka/uploads/v1/0000-2520";
  private static final String LOG = DIR + "/0.log";
  private static final Fence FENCE = new Fence(DIR, 1);

  private WeedProcess weed;

  @BeforeEach
  void startWeed() throws Exception {
    weed = WeedProcess.startWithSeparateVolumeServer();
  }

  @AfterEach
  void stopWeed() throws Exception {
    weed.close();
  }

  private SeaweedObjectStore store(Duration retryFor) {
    SeaweedObjectStore store =
        new SeaweedObjectStore(
            weed.filerAddress(), "", "", retryFor, PooledByteBufAllocator.DEFAULT);
    // A transaction per append, listing the chunk while it uploads: the path of volume servers
    // that check write tokens (ReservationTakeoverTest has the reservations' faults).
    store.useReservations(false);
    return store;
  }

  private static String readLog(SeaweedObjectStore store) throws IOException {
    return readAll(store, LOG);
  }

  @Test
  void anAppendWhoseUploadFailsReturnsOnceItsBytesAreStoredAnew() throws Exception {
    try (SeaweedObjectStore store = store(Duration.ofSeconds(60))) {
      assertEquals(1, store.claim(DIR, 1));
      store.append(LOG, text("first;"), FENCE);
      weed.killVolume();
      // The file id ready for the next append is on the dead volume server: its upload fails,
      // while the filer lists the chunk.
      CompletableFuture<Void> append =
          CompletableFuture.runAsync(
              () -> {
                try {
                  store.append(LOG, text("second;"), FENCE);
                } catch (IOException e) {
                  throw new RuntimeException(e);
                }
              });
      Thread.sleep(1500);
      assertTrue(!append.isDone(), "the append waits for its bytes to be stored");
      weed.startVolume();
      append.get(60, TimeUnit.SECONDS);
      store.append(LOG, text("third;"), FENCE);
      assertEquals("first;second;third;", readLog(store));
    }
    try (SeaweedObjectStore fresh = store(Duration.ofSeconds(60))) {
      assertEquals("first;second;third;", readLog(fresh), "as another broker reads it");
      assertEquals(19, fresh.stat(LOG).orElseThrow().size());
    }
  }

  @Test
  void anObjectWhoseLastChunkWasNeverStoredReadsAsEndingBeforeIt() throws Exception {
    long appended;
    try (SeaweedObjectStore store = store(Duration.ofSeconds(1))) {
      assertEquals(1, store.claim(DIR, 1));
      store.append(LOG, text("acknowledged;"), FENCE);
      weed.killVolume();
      // The volume server stays away longer than this store retries: the append fails, and the
      // entry it wrote ends in a chunk that no volume server holds, as when a broker stops between
      // the transaction and the upload.
      appended = System.currentTimeMillis();
      assertThrows(IOException.class, () -> store.append(LOG, text("never-stored;"), FENCE));
    }
    weed.startVolume();
    // A reader whose own retries are shorter still waits for the chunk to settle.
    try (SeaweedObjectStore fresh = store(Duration.ofSeconds(1))) {
      assertEquals(
          "acknowledged;".length() + "never-stored;".length(),
          fresh.stat(LOG).orElseThrow().size(),
          "the entry lists the chunk");
      long start = System.nanoTime();
      assertEquals("acknowledged;", readLog(fresh));
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(
          System.currentTimeMillis() - appended >= SeaweedObjectStore.PENDING_SETTLE_MS,
          "a missing chunk is asked for again until its writer can no longer count it as stored");
      assertTrue(
          tookMs < SeaweedObjectStore.PENDING_SETTLE_MS + 5_000,
          "nor much longer, and not for the store's minute of retries: " + tookMs + " ms");
      ByteBuf past = fresh.read(LOG, "acknowledged;".length(), 100);
      try {
        assertEquals(0, past.readableBytes());
      } finally {
        past.release();
      }
      // The writer carries on, as the engine does after such a failure, in a new object.
      fresh.claim(DIR, 2);
      fresh.append(DIR + "/1.log", text("next;"), new Fence(DIR, 2));
      assertEquals("next;", readAll(fresh, DIR + "/1.log"));
    }
  }

  /**
   * An upload that ends after its limit: another broker may have read the object as ending before
   * the chunk by then, so the append fails although its bytes are stored.
   */
  @Test
  void anAppendWhoseUploadEndsPastItsLimitFails() throws Exception {
    try (SeaweedObjectStore store = store(Duration.ofSeconds(60))) {
      assertEquals(1, store.claim(DIR, 1));
      store.append(LOG, text("first;"), FENCE);
      signal(weed.volumePid(), "STOP");
      CompletableFuture<Void> append;
      try {
        append =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    store.append(LOG, text("late;"), FENCE);
                  } catch (IOException e) {
                    throw new CompletionException(e);
                  }
                });
        Thread.sleep(SeaweedObjectStore.PENDING_UPLOAD_LIMIT_MS + 1_000);
      } finally {
        signal(weed.volumePid(), "CONT");
      }
      ExecutionException failed =
          assertThrows(ExecutionException.class, () -> append.get(60, TimeUnit.SECONDS));
      assertInstanceOf(IOException.class, failed.getCause());
      assertTrue(
          failed.getCause().getMessage().contains("past its limit"),
          failed.getCause().getMessage());
    }
  }

  private static void signal(long pid, String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + name + " " + pid);
  }
}
