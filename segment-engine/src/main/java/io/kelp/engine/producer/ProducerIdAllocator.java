package io.kelp.engine.producer;

import io.kelp.engine.store.EpochCounter;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Hands out producer ids that are never reused, across restarts and across brokers sharing one
 * store. Ids are reserved in blocks of {@value #BLOCK_SIZE}: block {@code b} holds the ids {@code b
 * * BLOCK_SIZE} up to {@code (b + 1) * BLOCK_SIZE - 1}. The number of the last reserved block is
 * the owner epoch of the directory {@value #BLOCKS} ({@link ObjectStore#claim}), which makes a
 * reservation a compare-and-set: the claim of a block succeeds for one store only, even when two
 * brokers race for it, and a broker that loses moves on to the next block. A block is reserved
 * durably before any of its ids is handed out.
 *
 * <p>Earlier versions kept the first id of the next free block, as decimal text, in {@value
 * #LEGACY_PATH}, rewriting it without a guard; it is still read, so that no id handed out under it
 * comes back.
 */
public final class ProducerIdAllocator {
  public static final String BLOCKS = "/kelp/producer-id-blocks";
  public static final String LEGACY_PATH = "/kelp/producer-ids";
  static final long BLOCK_SIZE = 1000;

  /** Reservations lost to other brokers in a row before giving up; each one means progress. */
  private static final int MAX_LOST_RACES = 1000;

  private final ObjectStore store;
  private long lastBlock = -1;
  private boolean started;
  private long next;
  private long blockEnd;

  public ProducerIdAllocator(ObjectStore store) {
    this.store = store;
  }

  /** A fresh producer id. */
  public synchronized long allocate() throws IOException {
    if (next >= blockEnd) {
      long block = reserveBlock();
      next = block * BLOCK_SIZE;
      blockEnd = next + BLOCK_SIZE;
    }
    return next++;
  }

  private long reserveBlock() throws IOException {
    if (!started) {
      // Start past the last block reserved so far (a claim of Long.MIN_VALUE only reads), and past
      // every id handed out under the old scheme.
      long legacyNext = readLegacyNext();
      lastBlock =
          Math.max(
              store.claim(BLOCKS, Long.MIN_VALUE),
              Math.floorDiv(legacyNext + BLOCK_SIZE - 1, BLOCK_SIZE) - 1);
      started = true;
    }
    lastBlock = EpochCounter.takeNext(store, BLOCKS, lastBlock + 1, MAX_LOST_RACES);
    return lastBlock;
  }

  private long readLegacyNext() throws IOException {
    Optional<ObjectInfo> stat = store.stat(LEGACY_PATH);
    if (stat.isEmpty()) {
      return 0;
    }
    ByteBuf data = store.read(LEGACY_PATH, 0, (int) stat.get().size());
    try {
      String text = data.toString(StandardCharsets.US_ASCII).trim();
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw new IOException(
            "corrupt producer id block in " + LEGACY_PATH + ": '" + text + "'", e);
      }
    } finally {
      data.release();
    }
  }
}
