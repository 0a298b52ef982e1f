package io.kelp.engine.log;

import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.PooledByteBufAllocator;

/** Creates the engine. */
public final class LogEngines {
  private LogEngines() {}

  /** An engine over {@code store}; it does not own the store (closing the engine keeps it open). */
  public static LogEngine create(ObjectStore store, EngineConfig config) {
    return new SegmentLogEngine(store, config, PooledByteBufAllocator.DEFAULT);
  }
}
