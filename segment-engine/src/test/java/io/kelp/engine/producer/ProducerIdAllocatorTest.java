package io.kelp.engine.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.store.LocalObjectStore;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerIdAllocatorTest {
  @TempDir Path dir;

  @Test
  void idsAreNeverReusedAcrossRestarts() throws Exception {
    Set<Long> seen = new HashSet<>();
    for (int restart = 0; restart < 3; restart++) {
      LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT);
      ProducerIdAllocator ids = new ProducerIdAllocator(store);
      for (int i = 0; i < 1500; i++) {
        assertTrue(seen.add(ids.allocate()), "an id came back twice");
      }
      store.close();
    }
    assertEquals(4500, seen.size());
  }

  @Test
  void idsHandedOutUnderTheOldSingleFileSchemeNeverComeBack() throws Exception {
    try (LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT)) {
      writeOldFile(store, "2500"); // ids up to 2,499 were reserved, as an earlier version wrote
      assertEquals(3000, new ProducerIdAllocator(store).allocate());
    }
    try (LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT)) {
      assertEquals(4000, new ProducerIdAllocator(store).allocate(), "block 3 was reserved");
    }
  }

  @Test
  void aCorruptOldFileIsReportedNotIgnored() throws Exception {
    try (LocalObjectStore store = new LocalObjectStore(dir, UnpooledByteBufAllocator.DEFAULT)) {
      writeOldFile(store, "12x");
      IOException e =
          assertThrows(IOException.class, () -> new ProducerIdAllocator(store).allocate());
      assertTrue(e.getMessage().contains("12x"), e.getMessage());
    }
  }

  private static void writeOldFile(LocalObjectStore store, String text) throws IOException {
    store.put(
        ProducerIdAllocator.LEGACY_PATH,
        Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.US_ASCII)),
        null);
  }
}
