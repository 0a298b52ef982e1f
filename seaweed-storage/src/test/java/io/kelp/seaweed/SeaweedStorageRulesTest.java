package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The store's collection and replication settings reach SeaweedFS's volume assignment. */
class SeaweedStorageRulesTest {
  private static WeedProcess weed;

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

  @Test
  void chunksGoToVolumesOfTheConfiguredCollection() throws Exception {
    try (SeaweedObjectStore store = store("kelpdata", "000", Duration.ofSeconds(20))) {
      byte[] data = new byte[SeaweedObjectStore.INLINE_LIMIT + 1];
      Arrays.fill(data, (byte) 'k');
      store.append("/topics/kafka/ruled/0000-2520/seg", Unpooled.wrappedBuffer(data), null);
      ByteBuf back = store.read("/topics/kafka/ruled/0000-2520/seg", 0, data.length);
      try {
        assertEquals(data.length, back.readableBytes());
      } finally {
        back.release();
      }
    }
    try (FilerClient filer = new FilerClient(weed.filerAddress(), Duration.ofSeconds(10))) {
      Entry entry = filer.lookup("/topics/kafka/ruled/0000-2520", "seg").orElseThrow();
      assertFalse(entry.getChunksList().isEmpty(), "stored as chunks");
      for (FileChunk chunk : entry.getChunksList()) {
        String volume = chunk.getFileId().substring(0, chunk.getFileId().indexOf(','));
        // SeaweedFS names a volume's files after its collection: <collection>_<id>.dat
        assertTrue(
            Files.exists(weed.dataDir().resolve("kelpdata_" + volume + ".dat")),
            "volume " + volume + " of chunk " + chunk.getFileId() + " is in collection kelpdata");
      }
    }
  }

  @Test
  void aReplicationTheClusterCannotMeetFailsTheWriteSayingWhy() throws Exception {
    // One volume server cannot hold a second copy on another server of its rack ("001").
    try (SeaweedObjectStore store = store("", "001", Duration.ofSeconds(3))) {
      long start = System.nanoTime();
      IOException e = assertThrows(IOException.class, store::checkVolumes);
      assertTrue(System.nanoTime() - start < Duration.ofSeconds(30).toNanos(), "gives up in time");
      assertTrue(
          e.getMessage().contains("001") || e.getMessage().contains("replica"), e.toString());
    }
  }

  private static SeaweedObjectStore store(String collection, String replication, Duration retry) {
    return new SeaweedObjectStore(
        weed.filerAddress(),
        collection,
        replication,
        retry,
        SeaweedObjectStore.DEFAULT_READ_CACHE_BYTES,
        SeaweedObjectStore.DEFAULT_MAX_APPENDS_PER_OBJECT,
        true,
        PooledByteBufAllocator.DEFAULT);
  }
}
