package io.kelp.seaweed;

import io.kelp.engine.store.ObjectStore;
import io.kelp.engine.store.ObjectStoreContractTest;
import io.netty.buffer.PooledByteBufAllocator;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The store contract against a real SeaweedFS; each test works in a fresh root of its own. */
class SeaweedObjectStoreTest extends ObjectStoreContractTest {
  private static final AtomicInteger ROOTS = new AtomicInteger();
  private static WeedProcess weed;
  private String root;

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

  @Override
  protected ObjectStore newStore() {
    root = "/contract-" + ROOTS.incrementAndGet();
    return reopen();
  }

  @Override
  protected ObjectStore reopen() {
    return new RootedStore(
        root,
        new SeaweedObjectStore(
            weed.filerAddress(), "", "", Duration.ofSeconds(20), PooledByteBufAllocator.DEFAULT));
  }
}
