package io.kelp.engine.log;

import io.kelp.engine.TopicPartition;
import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;

/**
 * All partition logs this broker owns, sharing one store, one group-commit flusher and one memory
 * budget. {@link #close()} flushes everything durably before returning.
 */
public interface LogEngine extends Closeable {

  /**
   * Opens the log of a partition stored under {@code directory}, creating it if the directory is
   * empty, else recovering it: segments and indexes checked, a torn tail cut off at the last valid
   * batch, next offset, high watermark and producer state restored. Claims the directory with
   * {@code ownerEpoch}; a later owner with a higher epoch fences this one.
   */
  PartitionLog open(TopicPartition tp, String directory, LogConfig config, long ownerEpoch)
      throws IOException;

  /**
   * {@link #open} for a partition that was opened before, as at a broker's start: one whose
   * directory has lost its metadata (removed behind the broker's back) is opened all the same, and
   * logged as such.
   */
  default PartitionLog reopen(
      TopicPartition tp, String directory, LogConfig config, long ownerEpoch) throws IOException {
    return open(tp, directory, config, ownerEpoch);
  }

  Optional<PartitionLog> get(TopicPartition tp);

  /** Flushes and closes one partition's log; it stays in the store. */
  void closePartition(TopicPartition tp) throws IOException;

  /** Closes one partition's log and deletes its data from the store. */
  void deletePartition(TopicPartition tp) throws IOException;

  /** Unflushed bytes held in memory, for backpressure decisions. */
  long pendingBytes();

  /** Whether pending bytes are past the configured budget: stop reading produce requests. */
  boolean overMemoryBudget();

  /**
   * Calls {@code listener} once pending bytes drop below the budget again (on an engine thread).
   */
  void whenMemoryAvailable(Runnable listener);

  /**
   * A client connection whose acks=all produce requests the flusher should know of, so that it
   * writes the requests a client sends together in one cycle; close it with the connection.
   */
  ProduceConnection openProduceConnection();
}
