package io.kelp.engine.store;

/**
 * The right to write under {@code directory}, held by the writer that claimed it with {@code
 * epoch}; see {@link ObjectStore#claim}.
 */
public record Fence(String directory, long epoch) {}
