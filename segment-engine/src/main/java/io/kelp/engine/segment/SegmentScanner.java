package io.kelp.engine.segment;

import io.kelp.codec.record.InvalidRecordException;
import io.kelp.codec.record.RecordBatch;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;

/**
 * Walks the batches of a segment object in the store, reading it in blocks, and stops at the first
 * batch that is not whole and valid: cut short, a bad length or magic, a CRC that does not match
 * (when asked to check), offsets that go backwards, or offsets at or past {@code offsetLimit} (the
 * next segment's base). Recovery uses the position it stops at as the segment's valid length.
 *
 * <p>Buffer ownership: the scanner owns its block buffer and releases it on {@link #close()}; the
 * batch view from {@link #batch()} is valid until the next call to {@link #next()}.
 */
public final class SegmentScanner implements AutoCloseable {
  public static final int DEFAULT_BLOCK_SIZE = 1 << 20;

  private final ObjectStore store;
  private final String path;
  private final long end;
  private final long offsetLimit;
  private final int blockSize;
  private final boolean verifyCrc;
  private ByteBuf block;
  private long blockStart;
  private long pos;
  private long expectedOffset;
  private RecordBatch current;
  private long currentPosition;
  private boolean done;
  private String problem;

  /**
   * @param from the position of a batch to start at
   * @param end where the bytes to scan end (the object's size, or a valid length)
   * @param minOffset no batch may start below this offset
   * @param offsetLimit no batch may reach this offset (Long.MAX_VALUE: no limit)
   */
  public SegmentScanner(
      ObjectStore store,
      String path,
      long from,
      long end,
      long minOffset,
      long offsetLimit,
      int blockSize,
      boolean verifyCrc) {
    this.store = store;
    this.path = path;
    this.pos = from;
    this.end = end;
    this.expectedOffset = minOffset;
    this.offsetLimit = offsetLimit;
    this.blockSize = blockSize;
    this.verifyCrc = verifyCrc;
  }

  /** Moves to the next whole, valid batch; false at the end or at the first bad byte. */
  public boolean next() throws IOException {
    current = null;
    if (done) {
      return false;
    }
    if (pos >= end) {
      return stop(null);
    }
    if (!ensure(pos, RecordBatch.LOG_OVERHEAD)) {
      return stop("a partial batch header at byte " + pos);
    }
    int length = block.getInt((int) (pos - blockStart) + 8);
    if (length < RecordBatch.MIN_BATCH_LENGTH) {
      return stop("batchLength " + length + " at byte " + pos);
    }
    long size = (long) length + RecordBatch.LOG_OVERHEAD;
    if (pos + size > end || !ensure(pos, (int) size)) {
      return stop("a partial batch of " + size + " bytes at byte " + pos);
    }
    RecordBatch batch;
    try {
      batch = RecordBatch.at(block, (int) (pos - blockStart));
    } catch (InvalidRecordException e) {
      return stop(e.getMessage());
    }
    if (verifyCrc && !batch.isCrcValid()) {
      return stop("a CRC mismatch in the batch at byte " + pos);
    }
    if (batch.baseOffset() < expectedOffset || batch.lastOffsetDelta() < 0) {
      return stop(
          "offsets going backwards at byte "
              + pos
              + ": batch "
              + batch.baseOffset()
              + "-"
              + batch.lastOffset()
              + " after "
              + (expectedOffset - 1));
    }
    if (batch.lastOffset() >= offsetLimit) {
      return stop("batch " + batch.baseOffset() + " reaches the next segment at " + offsetLimit);
    }
    current = batch;
    currentPosition = pos;
    expectedOffset = batch.nextOffset();
    pos += size;
    return true;
  }

  private boolean stop(String why) {
    done = true;
    problem = why;
    current = null;
    return false;
  }

  /** Makes bytes [at, at + n) available in the block; false if the object ends first. */
  private boolean ensure(long at, int n) throws IOException {
    if (block != null && at >= blockStart && at + n <= blockStart + block.writerIndex()) {
      return true;
    }
    if (block != null) {
      block.release();
      block = null;
    }
    long want = Math.min(end - at, Math.max((long) n, blockSize));
    block = store.read(path, at, (int) want);
    blockStart = at;
    return block.writerIndex() >= n;
  }

  /** The current batch: a view valid until the next call to {@link #next()}. */
  public RecordBatch batch() {
    return current;
  }

  /** The position of the current batch in the object. */
  public long position() {
    return currentPosition;
  }

  /** The position after the last whole, valid batch. */
  public long validEnd() {
    return pos;
  }

  /** The offset after the last valid batch (the starting minimum before any). */
  public long nextOffset() {
    return expectedOffset;
  }

  /** Why the scan stopped before {@code end}, or null if it reached it (or has not stopped). */
  public String problem() {
    return problem;
  }

  @Override
  public void close() {
    if (block != null) {
      block.release();
      block = null;
    }
  }
}
