package io.kelp.engine.log;

/**
 * How to append.
 *
 * @param nowMs the broker's clock, used for LogAppendTime and retention bookkeeping
 * @param awaited whether the caller waits for the records to be durable (an acks=all produce): the
 *     flusher writes such appends at once, and may hold back, for larger writes, appends that
 *     nothing waits for (see {@link EngineConfig#flushLazyMs})
 */
public record AppendOptions(long nowMs, boolean awaited) {
  /** An append whose caller waits for it to be durable. */
  public AppendOptions(long nowMs) {
    this(nowMs, true);
  }
}
