package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kelp.seaweed.filer.FilerProto.CreateEntryRequest;
import io.kelp.seaweed.filer.FilerProto.CreateEntryResponse;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.kelp.seaweed.filer.FilerProto.FuseAttributes;
import io.kelp.seaweed.filer.FilerProto.LookupDirectoryEntryRequest;
import io.kelp.seaweed.filer.FilerProto.LookupDirectoryEntryResponse;
import io.kelp.seaweed.filer.SeaweedFilerGrpc;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The transactions' own gRPC connections against a real filer. */
class BlockingGrpcTest {
  private static final String CREATE =
      "/" + SeaweedFilerGrpc.getCreateEntryMethod().getFullMethodName();
  private static final String LOOKUP =
      "/" + SeaweedFilerGrpc.getLookupDirectoryEntryMethod().getFullMethodName();
  private static final AtomicInteger DIRS = new AtomicInteger();
  private static WeedProcess weed;

  private final String dir = "/grpc-" + DIRS.incrementAndGet();

  @BeforeAll
  static void startWeed() throws Exception {
    weed = WeedProcess.start();
  }

  @AfterAll
  static void stopWeed() throws Exception {
    if (weed != null) {
      weed.close();
    }
  }

  private static BlockingGrpc client() {
    return new BlockingGrpc("127.0.0.1", weed.filerGrpcPort(), 5_000, 64 << 20);
  }

  private static Entry entry(String name, int chunks) {
    Entry.Builder e =
        Entry.newBuilder()
            .setName(name)
            .setAttributes(
                FuseAttributes.newBuilder()
                    .setFileSize(chunks * 100L)
                    .setMtime(System.currentTimeMillis() / 1000)
                    .setFileMode(0644));
    for (int i = 0; i < chunks; i++) {
      e.addChunks(
          FileChunk.newBuilder()
              .setFileId("3,0" + Integer.toHexString(0x10000 + i) + "abcdef01")
              .setOffset(i * 100L)
              .setSize(100)
              .setModifiedTsNs(1_700_000_000_000_000_000L + i));
    }
    return e.build();
  }

  /** The chunks' ids and places (the filer adds fields of its own). */
  private static List<String> chunks(Entry e) {
    List<String> out = new ArrayList<>();
    for (FileChunk c : e.getChunksList()) {
      out.add(c.getFileId() + "@" + c.getOffset() + "+" + c.getSize());
    }
    return out;
  }

  private static void create(BlockingGrpc grpc, String dir, Entry e) {
    CreateEntryResponse created =
        grpc.call(
            CREATE,
            CreateEntryRequest.newBuilder().setDirectory(dir).setEntry(e).build(),
            CreateEntryResponse.parser(),
            5_000);
    assertEquals("", created.getError());
  }

  private static Entry lookup(BlockingGrpc grpc, String dir, String name, long timeoutMs) {
    return grpc.call(
            LOOKUP,
            LookupDirectoryEntryRequest.newBuilder().setDirectory(dir).setName(name).build(),
            LookupDirectoryEntryResponse.parser(),
            timeoutMs)
        .getEntry();
  }

  /**
   * A request and an answer of about 300 KB each: more than a frame, and the request more than the
   * window HTTP/2 starts with, on a connection that has not read the filer's settings yet.
   */
  @Test
  void largeRequestsAndAnswersCrossFramesAndWindows() {
    try (BlockingGrpc grpc = client()) {
      Entry big = entry("big", 8_000);
      assertTrue(big.getSerializedSize() > 200_000, "size " + big.getSerializedSize());
      create(grpc, dir, big);
      Entry back = lookup(grpc, dir, "big", 5_000);
      assertEquals(chunks(big), chunks(back));
      for (int i = 0; i < 5; i++) {
        create(grpc, dir, entry("big-" + i, 8_000));
      }
      assertEquals(1, grpc.connectionsOpened());
    }
  }

  @Test
  void theFilersErrorsComeAsTheirStatusAndLeaveTheConnectionInUse() {
    try (BlockingGrpc grpc = client()) {
      StatusRuntimeException missing =
          assertThrows(StatusRuntimeException.class, () -> lookup(grpc, dir, "none", 5_000));
      assertTrue(
          missing.getStatus().getCode() != Status.Code.OK
              && missing.getStatus().getCode() != Status.Code.UNAVAILABLE,
          missing.toString());
      assertTrue(missing.getMessage().contains("LookupDirectoryEntry"), missing.getMessage());
      StatusRuntimeException unknown =
          assertThrows(
              StatusRuntimeException.class,
              () ->
                  grpc.call(
                      "/filer_pb.SeaweedFiler/NoSuchMethod",
                      LookupDirectoryEntryRequest.getDefaultInstance(),
                      LookupDirectoryEntryResponse.parser(),
                      5_000));
      assertEquals(Status.Code.UNIMPLEMENTED, unknown.getStatus().getCode());
      create(grpc, dir, entry("after-errors", 1));
      assertEquals("after-errors", lookup(grpc, dir, "after-errors", 5_000).getName());
      assertEquals(1, grpc.connectionsOpened());
    }
  }

  @Test
  void callsAtOnceTakeAConnectionEach() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try (BlockingGrpc grpc = client()) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        done.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    Entry e = entry("t" + thread + "-" + i, 2);
                    create(grpc, dir, e);
                    assertEquals(chunks(e), chunks(lookup(grpc, dir, e.getName(), 5_000)));
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      assertTrue(grpc.connectionsOpened() <= 4, "opened " + grpc.connectionsOpened());
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Work the caller does while its request is out: it runs on the calling thread once the filer has
   * the request (which it can then see applied from another connection), and its time does not
   * count against the call's deadline.
   */
  @Test
  void workMeanwhileRunsOnceTheRequestIsSentAndOutsideTheDeadline() {
    try (BlockingGrpc grpc = client();
        BlockingGrpc other = client()) {
      Thread caller = Thread.currentThread();
      List<String> seen = new ArrayList<>();
      CreateEntryResponse created =
          grpc.call(
              CREATE,
              CreateEntryRequest.newBuilder()
                  .setDirectory(dir)
                  .setEntry(entry("meanwhile", 2))
                  .build(),
              CreateEntryResponse.parser(),
              300,
              () -> {
                seen.add(Thread.currentThread() == caller ? "caller" : "another thread");
                long until = System.nanoTime() + 5_000_000_000L;
                while (System.nanoTime() < until) {
                  try {
                    seen.add(lookup(other, dir, "meanwhile", 1_000).getName());
                    break;
                  } catch (StatusRuntimeException notYet) {
                    sleep(20);
                  }
                }
                sleep(600); // past the call's 300 ms
              });
      assertEquals("", created.getError());
      assertEquals(List.of("caller", "meanwhile"), seen);
      assertEquals(2, lookup(grpc, dir, "meanwhile", 5_000).getChunksCount());
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** A frozen filer: the call ends at its deadline, and the next one, once it thaws, succeeds. */
  @Test
  void aCallToAFrozenFilerEndsAtItsDeadline() throws Exception {
    try (BlockingGrpc grpc = client()) {
      create(grpc, dir, entry("before", 1));
      signal(weed.pid(), "STOP");
      long start = System.nanoTime();
      StatusRuntimeException late;
      try {
        late = assertThrows(StatusRuntimeException.class, () -> lookup(grpc, dir, "before", 500));
      } finally {
        signal(weed.pid(), "CONT");
      }
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      assertEquals(Status.Code.DEADLINE_EXCEEDED, late.getStatus().getCode());
      assertTrue(tookMs >= 450 && tookMs < 3_000, "took " + tookMs + " ms");
      assertEquals("before", lookup(grpc, dir, "before", 5_000).getName());
    }
  }

  /** A restarted filer: a call on the old connection fails as UNAVAILABLE, the next one lands. */
  @Test
  void aRestartedFilerIsReachedOnANewConnection() throws Exception {
    try (BlockingGrpc grpc = client()) {
      create(grpc, dir, entry("before-restart", 1));
      weed.restart();
      Entry after = null;
      for (int attempt = 0; attempt < 100 && after == null; attempt++) {
        try {
          after = lookup(grpc, dir, "before-restart", 2_000);
        } catch (StatusRuntimeException e) {
          assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
          Thread.sleep(100);
        }
      }
      assertEquals("before-restart", after == null ? null : after.getName());
      assertTrue(grpc.connectionsOpened() >= 2);
    }
  }

  private static void signal(long pid, String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + name + " " + pid);
  }
}
