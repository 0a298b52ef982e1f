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
 * @param retentionCheckIntervalMs how often retention runs over every log (Kafka's
 *     log.retention.check.interval.ms, here seconds rather than minutes)
 * @param producerIdExpirationMs how long an idle producer's state is kept
 *     (producer.id.expiration.ms)
 * @param cleanerBackoffMs how often the compaction cleaner looks for work (log.cleaner.backoff.ms)
 * @param cleanerDedupeBufferBytes memory the cleaner's key map may use
 *     (log.cleaner.dedupe.buffer.size); a log with more distinct keys is cleaned in several passes
 * @param flushGatherMs longest time a cycle of the flusher waits, after the first pending append,
 *     for the requests that produce connections are still sending (0: it does not wait): a producer
 *     with several requests in flight then has them written together, in one store write per
 *     partition rather than two or three
 * @param flushLazyMs longest time appended data that nothing waits for (acks=0 and acks=1 produce,
 *     while no acks=all produce and no fetch waits on its partition) waits before a flush starts,
 *     so that it goes to the store in fewer, larger writes (0: as flushMaxDelayMs alone says)
 */
public record EngineConfig(
    long flushMaxDelayMs,
    long flushMaxBytes,
    long memoryMaxBytes,
    long tailCacheBytes,
    int ioThreads,
    long retentionCheckIntervalMs,
    long producerIdExpirationMs,
    long cleanerBackoffMs,
    long cleanerDedupeBufferBytes,
    long flushGatherMs,
    long flushLazyMs) {

  public static final long DEFAULT_RETENTION_CHECK_INTERVAL_MS = 5_000;
  public static final long DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000;
  public static final long DEFAULT_CLEANER_BACKOFF_MS = 15_000;
  public static final long DEFAULT_CLEANER_DEDUPE_BUFFER_BYTES = 32L << 20;

  /** The first five settings, the rest at their defaults (no gathering, no lazy flushes). */
  public EngineConfig(
      long flushMaxDelayMs,
      long flushMaxBytes,
      long memoryMaxBytes,
      long tailCacheBytes,
      int ioThreads) {
    this(
        flushMaxDelayMs,
        flushMaxBytes,
        memoryMaxBytes,
        tailCacheBytes,
        ioThreads,
        DEFAULT_RETENTION_CHECK_INTERVAL_MS,
        DEFAULT_PRODUCER_ID_EXPIRATION_MS,
        DEFAULT_CLEANER_BACKOFF_MS,
        DEFAULT_CLEANER_DEDUPE_BUFFER_BYTES,
        0,
        0);
  }

  public static EngineConfig defaults() {
    return new EngineConfig(0, 4L << 20, 256L << 20, 256L << 20, 8);
  }
}
