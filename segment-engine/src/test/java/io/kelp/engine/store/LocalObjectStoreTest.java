package io.kelp.engine.store;

import io.netty.buffer.PooledByteBufAllocator;
import java.nio.file.Path;
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
}
