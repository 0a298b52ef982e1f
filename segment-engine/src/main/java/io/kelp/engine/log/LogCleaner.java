package io.kelp.engine.log;

import java.io.IOException;

/** Log compaction (cleanup.policy=compact). */
final class LogCleaner {
  LogCleaner(EngineConfig config) {}

  /** Cleans {@code log} if enough of it is dirty (or always, if {@code force}). */
  void clean(SegmentLog log, long nowMs, boolean force) throws IOException {}
}
