package io.kelp.engine.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.engine.store.LocalObjectStore;
import io.netty.buffer.UnpooledByteBufAllocator;
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
}
