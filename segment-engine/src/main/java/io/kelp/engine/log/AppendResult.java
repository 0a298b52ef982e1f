package io.kelp.engine.log;

import java.util.concurrent.CompletableFuture;

/**
 * What an append did.
 *
 * @param status the outcome; only OK and DUPLICATE carry offsets
 * @param baseOffset the offset of the first record appended (or of the original, for a duplicate)
 * @param lastOffset the offset of the last record appended
 * @param logAppendTime the broker time stamped into the batches, or -1 under CreateTime
 * @param logStartOffset the log start offset after the append
 * @param message what went wrong, for errors
 * @param durable completes when the records are in the store; completes exceptionally if they can
 *     never be (store failure past the retry budget, or the partition was lost to another owner)
 */
public record AppendResult(
    Status status,
    long baseOffset,
    long lastOffset,
    long logAppendTime,
    long logStartOffset,
    String message,
    CompletableFuture<Void> durable) {

  public enum Status {
    OK,
    /** The batch repeats one already appended (same producer, epoch and sequences). */
    DUPLICATE,
    OUT_OF_ORDER_SEQUENCE,
    INVALID_PRODUCER_EPOCH,
    UNKNOWN_PRODUCER_ID,
    /** The bytes are not a valid batch sequence after all. */
    INVALID_RECORD,
    /** This broker no longer owns the partition (closed, deleted or fenced). */
    NOT_OWNER,
    /** The store failed in a way that retrying will not fix soon. */
    STORE_ERROR
  }

  public static AppendResult error(Status status, String message) {
    return new AppendResult(
        status,
        -1,
        -1,
        -1,
        -1,
        message,
        CompletableFuture.failedFuture(new IllegalStateException(message)));
  }
}
