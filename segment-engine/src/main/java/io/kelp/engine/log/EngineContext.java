package io.kelp.engine.log;

import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.Executor;

/** What every partition log of one engine shares. */
record EngineContext(
    ObjectStore store,
    EngineConfig config,
    ByteBufAllocator alloc,
    MemoryBudget memory,
    TailCacheBudget tailCache,
    GroupCommitFlusher flusher,
    Executor io) {}
