package io.kelp.engine.log;

import io.kelp.engine.TopicPartition;
import io.netty.buffer.ByteBuf;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The log of one partition owned by this broker: dense sequential offsets, an in-memory active
 * segment flushed to the store with group commit, sparse offset and time indexes, producer state
 * for idempotence, retention and compaction. Thread-safe.
 *
 * <p>Offsets visible to consumers stop at the high watermark, the end of what is durable in the
 * store, so no reader ever sees an offset that a crash could reuse.
 */
public interface PartitionLog {

  TopicPartition topicPartition();

  /** The store directory of this partition. */
  String directory();

  /**
   * Appends the batches in {@code records} (one or more magic-2 batches, already validated by the
   * caller: CRC, lengths, sizes, timestamps). Offsets are assigned by rewriting base offsets in the
   * log's own copy of the bytes; {@code records} is neither modified nor released. Checks producer
   * sequences and epochs; applies LogAppendTime when the topic uses it. Never blocks on I/O: the
   * result's {@code durable} future completes once the batches are in the store.
   */
  AppendResult append(ByteBuf records, AppendOptions options);

  /**
   * Reads whole batches starting with the batch that contains {@code offset}, up to {@code
   * maxBytes} (but at least one whole batch if {@code minOneBatch} and one is available), and never
   * past the limit set by {@code isolation}. May block on store reads: call it off the network
   * threads.
   */
  ReadResult read(long offset, int maxBytes, Isolation isolation, boolean minOneBatch);

  /**
   * Like {@link #read}, from memory only and without blocking, so that a network thread may call
   * it: null when the batch holding {@code offset} is not in memory (call {@link #read} then);
   * otherwise what memory holds from there, which may stop short of {@code maxBytes} where the
   * batches in memory end.
   */
  ReadResult readCached(long offset, int maxBytes, Isolation isolation, boolean minOneBatch);

  long logStartOffset();

  /** The next offset to be assigned. */
  long logEndOffset();

  /** The first offset not yet durable; consumers read below it. */
  long highWatermark();

  /** The first offset of an undecided transaction, or the high watermark if there is none. */
  long lastStableOffset();

  /** The earliest offset whose batch has a timestamp at or after {@code timestamp}, if any. */
  Optional<TimestampOffset> offsetForTimestamp(long timestamp);

  /** The offset and timestamp of the record with the largest timestamp, if the log has records. */
  Optional<TimestampOffset> maxTimestamp();

  /**
   * Moves the log start offset up to {@code offset} (DeleteRecords), durably; segments entirely
   * below it are deleted. {@code offset} must not be past the high watermark.
   */
  DeleteRecordsResult deleteRecordsBefore(long offset);

  /** The end offset of {@code leaderEpoch} (OffsetForLeaderEpoch). */
  EpochEndOffset endOffsetForEpoch(int leaderEpoch);

  /** The leader epoch this broker stamps into the batches it appends. */
  int leaderEpoch();

  void updateConfig(LogConfig config);

  LogConfig config();

  /** Bytes of data in the store and in memory. */
  long sizeInBytes();

  /**
   * Completes once every record appended so far is written and below the high watermark (at once
   * when nothing is pending), exceptionally if that write fails. What is pending is written without
   * the lazy delay of data nothing waits for. For requests that must see every acknowledged record,
   * as Kafka's leader shows acks=1 records as soon as it has answered them.
   */
  CompletableFuture<Void> appendedWritten();

  /**
   * Calls {@code listener} (on an engine thread; it must not block) whenever the high watermark
   * moves. Closing the returned handle removes the listener.
   */
  AutoCloseable onHighWatermark(Runnable listener);
}
