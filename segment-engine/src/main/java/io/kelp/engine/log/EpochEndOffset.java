package io.kelp.engine.log;

/**
 * The answer to OffsetForLeaderEpoch: the largest epoch at or below the one asked for, and the
 * offset where it ended (the log end offset for the current epoch). Both -1 when unknown.
 */
public record EpochEndOffset(int leaderEpoch, long endOffset) {
  public static final EpochEndOffset UNKNOWN = new EpochEndOffset(-1, -1L);
}
