package io.kelp.engine.log;

/**
 * How to append.
 *
 * @param nowMs the broker's clock, used for LogAppendTime and retention bookkeeping
 */
public record AppendOptions(long nowMs) {}
