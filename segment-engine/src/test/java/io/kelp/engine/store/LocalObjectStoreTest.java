package io.kelp.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreTest extends ObjectStoreContractTest {
  @TempDir Path dir;

  @Override
  protected ObjectStore newStore() throws Exception {
    return new LocalObjectStore(dir, PooledByteBufAllocator.DEFAULT);
  }

  @Override
  protected ObjectStore reopen() throws Exception {
    return newStore();
  }

  @Test
  void anExclusiveStoreKeepsASecondOneOutUntilClosed() throws Exception {
    Path data = dir.resolve("owned");
    try (LocalObjectStore owner =
        LocalObjectStore.exclusive(data, PooledByteBufAllocator.DEFAULT)) {
      owner.put("/kelp/x", Unpooled.wrappedBuffer(new byte[] {'x'}), null);
      IOException e =
          assertThrows(
              IOException.class,
              () -> LocalObjectStore.exclusive(data, PooledByteBufAllocator.DEFAULT));
      assertTrue(e.getMessage().contains("is in use"), e.getMessage());
      // A reader (kelp dump) does not need the lock.
      try (LocalObjectStore reader = new LocalObjectStore(data, PooledByteBufAllocator.DEFAULT)) {
        ByteBuf back = reader.read("/kelp/x", 0, 1);
        try {
          assertEquals("x", back.toString(StandardCharsets.US_ASCII));
        } finally {
          back.release();
        }
      }
    }
    try (LocalObjectStore next = LocalObjectStore.exclusive(data, PooledByteBufAllocator.DEFAULT)) {
      assertTrue(next.stat("/kelp/x").isPresent(), "the next owner opens once the first closed");
    }
  }
}
