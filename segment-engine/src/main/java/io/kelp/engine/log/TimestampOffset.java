package io.kelp.engine.log;

/** A record's offset and timestamp. */
public record TimestampOffset(long timestamp, long offset) {}
