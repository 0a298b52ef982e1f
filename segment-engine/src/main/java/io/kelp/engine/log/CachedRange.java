package io.kelp.engine.log;

import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatches;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Whole batches of one partition held in memory, in offset order: a chunk the flusher just wrote,
 * or a block read from the store. Knows where each batch starts so a read finds the batch holding
 * an offset by binary search.
 *
 * <p>Buffer ownership: the range owns {@code data} and releases it in {@link #release()}; slices
 * handed out are retained, so readers keep their bytes alive after the range is evicted.
 */
final class CachedRange {
  private final ByteBuf data;
  private final int[] starts;
  private final long[] lastOffsets;
  private final int count;
  private final long firstOffset;
  private final int size;
  final LogCache owner;

  /**
   * Whether the bytes were read from the store (a reader's miss or a read-ahead), rather than just
   * written: such a range goes first once read through (see TailCacheBudget).
   */
  final boolean fromStore;

  /** Set once the range has left its cache, so its bytes are counted off the budget once only. */
  volatile boolean removed;

  /** Set once a reader has read to the end of the range (see TailCacheBudget#readThrough). */
  volatile boolean readThrough;

  /**
   * Whether the range was read ahead of its reader and no read has taken from it yet; guarded by
   * the owner's lock.
   */
  boolean unreadAhead;

  /** Takes ownership of {@code data}, which must hold only whole batches. */
  CachedRange(ByteBuf data, LogCache owner, boolean fromStore) {
    this.data = data;
    this.owner = owner;
    this.fromStore = fromStore;
    int[] s = new int[8];
    long[] l = new long[8];
    int n = 0;
    RecordBatches.Walker walker = RecordBatches.walk(data);
    while (walker.hasNext()) {
      RecordBatch batch = walker.next();
      if (n == s.length) {
        s = Arrays.copyOf(s, n * 2);
        l = Arrays.copyOf(l, n * 2);
      }
      s[n] = batch.offset() - data.readerIndex();
      l[n] = batch.lastOffset();
      n++;
    }
    if (n == 0 || walker.end() != RecordBatches.End.COMPLETE) {
      throw new IllegalArgumentException("a cached range must hold whole batches only");
    }
    this.starts = s;
    this.lastOffsets = l;
    this.count = n;
    this.firstOffset = data.getLong(data.readerIndex());
    this.size = data.readableBytes();
  }

  long firstOffset() {
    return firstOffset;
  }

  long nextOffset() {
    return lastOffsets[count - 1] + 1;
  }

  int sizeInBytes() {
    return size;
  }

  /** Whether the batch holding {@code offset}, if the log has one, is in this range. */
  boolean covers(long offset) {
    return offset <= lastOffsets[count - 1];
  }

  /**
   * Whole batches from the first whose last offset is at or after {@code offset}, each ending below
   * {@code limit}, together at most {@code maxBytes} bytes, or the first batch alone if {@code
   * minOneBatch}. The slice is retained: the caller releases it.
   */
  ReadPiece slice(long offset, long limit, int maxBytes, boolean minOneBatch) {
    int first = firstWithLastOffsetAtOrAfter(offset);
    if (first >= count) {
      return ReadPiece.NONE;
    }
    if (lastOffsets[first] >= limit) {
      return ReadPiece.NONE;
    }
    int end = first;
    int bytes = 0;
    boolean full = false;
    while (end < count && lastOffsets[end] < limit) {
      int size = batchEnd(end) - starts[end];
      if (bytes + size > maxBytes && !(end == first && minOneBatch)) {
        full = true;
        break;
      }
      bytes += size;
      end++;
    }
    if (end == first) {
      return full ? ReadPiece.FULL : ReadPiece.NONE;
    }
    ByteBuf slice = data.retainedSlice(data.readerIndex() + starts[first], bytes);
    return new ReadPiece(slice, lastOffsets[end - 1] + 1, bytes, full || end < count);
  }

  /** The bytes from the batch holding {@code offset} to the end of the range. */
  int bytesFrom(long offset) {
    int first = firstWithLastOffsetAtOrAfter(offset);
    return first >= count ? 0 : size - starts[first];
  }

  private int batchEnd(int i) {
    return i + 1 < count ? starts[i + 1] : size;
  }

  private int firstWithLastOffsetAtOrAfter(long offset) {
    int lo = 0;
    int hi = count;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (lastOffsets[mid] < offset) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  void release() {
    data.release();
  }
}
