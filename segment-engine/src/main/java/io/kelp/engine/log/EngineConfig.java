package io.kelp.engine.log;

/**
 * Engine-wide settings.
 *
 * @param flushMaxDelayMs longest time appended data waits before a flush starts (0: flush as soon
 *     as the previous flush ends, which is group commit at the store's pace)
 * @param flushMaxBytes start a flush early once this many bytes are pending
 * @param memoryMaxBytes unflushed bytes past which produce requests are held back
 * @param tailCacheBytes recently flushed bytes kept in memory across all partitions for fetches
 * @param ioThreads threads that run store writes and reads
 */
public record EngineConfig(
    long flushMaxDelayMs,
    long flushMaxBytes,
    long memoryMaxBytes,
    long tailCacheBytes,
    int ioThreads) {

  public static EngineConfig defaults() {
    return new EngineConfig(0, 4L << 20, 256L << 20, 256L << 20, 8);
  }
}
