package io.kelp.engine.log;

import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;

/**
 * Reads a partition's batches straight from the store, without opening the log: for offline tools
 * ({@code kelp dump}) that must not claim or recover anything.
 */
public final class LogReader {
  private LogReader() {}

  /** Receives batches in offset order; the buffer is valid only during the call. */
  public interface BatchVisitor {
    /** Returns false to stop. */
    boolean visit(ByteBuf batch) throws IOException;
  }

  /**
   * Visits every complete, valid batch of the partition stored under {@code partitionDir} whose
   * last offset is at or after {@code fromOffset}, in offset order; stops at a torn or invalid
   * tail.
   */
  public static void readBatches(
      ObjectStore store, String partitionDir, long fromOffset, BatchVisitor visitor)
      throws IOException {
    throw new UnsupportedOperationException("the segment engine is not implemented yet");
  }
}
