package io.kelp.engine.log;

import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatches;
import io.kelp.engine.producer.ProducerStateTable.ProducerAppend;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Checks the batches of one append and gives them their offsets: every batch must be whole and pass
 * the producer checks at the offsets it will get; then one copy of them gets base offsets, leader
 * epoch and (for LogAppendTime) the append time written in. Answering a refused append is {@link
 * SegmentLog}'s part. Called under the log's append lock.
 */
final class AppendValidator {
  private final int leaderEpoch;
  private final ByteBufAllocator alloc;

  AppendValidator(int leaderEpoch, ByteBufAllocator alloc) {
    this.leaderEpoch = leaderEpoch;
    this.alloc = alloc;
  }

  /**
   * Walks the batches of {@code records}, which will get offsets from {@code firstOffset}, through
   * {@code check}, stopping at the first one it refuses. Returns what is wrong with the bytes, or
   * null: then {@code check.outcome()} says whether every batch was accepted.
   */
  String check(ByteBuf records, ProducerAppend check, long firstOffset) {
    long offset = firstOffset;
    int batches = 0;
    RecordBatches.Walker walker = RecordBatches.walk(records);
    while (walker.hasNext()) {
      RecordBatch batch = walker.next();
      if (batch.lastOffsetDelta() < 0) {
        return "batch with lastOffsetDelta " + batch.lastOffsetDelta();
      }
      if (!check.check(batch, offset)) {
        return null;
      }
      offset += batch.lastOffsetDelta() + 1L;
      batches++;
    }
    if (batches == 0 || walker.end() != RecordBatches.End.COMPLETE) {
      return walker.problem() == null ? "no record batch" : walker.problem();
    }
    return null;
  }

  /**
   * Copies the checked {@code records} once into pooled memory and rewrites offsets from {@code
   * firstOffset}, leader epoch and, unless it is negative, {@code appendTime} there.
   */
  PendingChunk assignOffsets(ByteBuf records, long firstOffset, long appendTime) {
    int size = records.readableBytes();
    ByteBuf copy = alloc.directBuffer(size, size);
    copy.writeBytes(records, records.readerIndex(), size);
    long offset = firstOffset;
    RecordBatches.Walker walker = RecordBatches.walk(copy);
    while (walker.hasNext()) {
      RecordBatch batch = walker.next();
      batch.setBaseOffset(offset);
      batch.setPartitionLeaderEpoch(leaderEpoch);
      if (appendTime >= 0) {
        batch.setLogAppendTime(appendTime);
      }
      offset = batch.nextOffset();
    }
    return new PendingChunk(copy, firstOffset, offset);
  }
}
