package io.kelp.engine.log;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;

/**
 * What a read returned.
 *
 * @param records whole batches (never null; empty when there is nothing to read); the caller owns
 *     and releases it
 * @param abortedTransactions for read_committed reads: the transactions aborted in the range read
 */
public record ReadResult(
    Status status,
    ByteBuf records,
    long highWatermark,
    long lastStableOffset,
    long logStartOffset,
    List<AbortedTransaction> abortedTransactions) {

  public enum Status {
    OK,
    OFFSET_OUT_OF_RANGE,
    NOT_OWNER,
    STORE_ERROR
  }

  /** A transaction a read_committed consumer must skip: its producer and first offset. */
  public record AbortedTransaction(long producerId, long firstOffset) {}

  public static ReadResult error(Status status, long hw, long lso, long logStart) {
    return new ReadResult(status, Unpooled.EMPTY_BUFFER, hw, lso, logStart, List.of());
  }
}
