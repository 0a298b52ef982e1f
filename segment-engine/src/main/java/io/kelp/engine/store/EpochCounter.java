package io.kelp.engine.store;

import java.io.IOException;

/**
 * A counter kept as a directory's owner epoch ({@link ObjectStore#claim}): taking the next value is
 * a compare-and-set, so two stores sharing one never take the same value, and a store that loses a
 * race moves on to the next one.
 */
public final class EpochCounter {
  private EpochCounter() {}

  /**
   * Takes the lowest value at or above {@code from} that is also above every value taken before,
   * records it as {@code directory}'s owner epoch, and returns it.
   *
   * @throws IOException if other stores took {@code maxLostRaces} values in a row first, or the
   *     store fails
   */
  public static long takeNext(ObjectStore store, String directory, long from, int maxLostRaces)
      throws IOException {
    long candidate = from;
    for (int lost = 0; lost < maxLostRaces; lost++) {
      long recorded;
      try {
        recorded = store.claim(directory, candidate);
      } catch (FencedException e) {
        candidate++; // another store took this very value first
        continue;
      }
      if (recorded == candidate) {
        return candidate;
      }
      candidate = Math.max(candidate, recorded) + 1; // later values are taken already
    }
    throw new IOException(
        "could not take the next value of "
            + directory
            + ": other stores took "
            + maxLostRaces
            + " in a row");
  }
}
