package io.kelp.engine.log;

import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatches;
import io.kelp.engine.segment.Segment;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;

/**
 * Reads of a partition that miss the cache: find the segment and, through its sparse index, the
 * position to start at; read a block of at least {@link #READ_AHEAD_BYTES} from the store; keep its
 * whole batches in the partition's cache so the next sequential reads are served from memory; and
 * remember where the block ended so a sequential reader never reads the same range twice even when
 * the cache has no room.
 */
final class StoreReads {
  static final int READ_AHEAD_BYTES = 1 << 20;
  static final int MIN_READ_BYTES = 1 << 10;
  private static final int ATTEMPTS = 3;

  private final ObjectStore store;
  private final ConcurrentNavigableMap<Long, Segment> segments;
  private final LogCache cache;
  private volatile LastRead lastRead;

  /** Where the last store read ended: the next batch of {@code segment} starts there. */
  private record LastRead(Segment segment, long nextOffset, long position) {}

  StoreReads(ObjectStore store, ConcurrentNavigableMap<Long, Segment> segments, LogCache cache) {
    this.store = store;
    this.segments = segments;
    this.cache = cache;
  }

  /**
   * How much to read from the store at once: ahead of the reader when the cache can keep it, else
   * just about what the reader asked for, so nothing is read twice.
   */
  private int readSize(int maxBytes) {
    int atLeast = cache.enabled() ? READ_AHEAD_BYTES : MIN_READ_BYTES;
    return Math.max(atLeast, maxBytes);
  }

  /**
   * Reads from the store the batch holding {@code offset} (or the first after it) and what follows
   * in its segment; see {@link CachedRange#slice}. Retries when a concurrent retention or
   * compaction removed the segment under it.
   */
  ReadPiece read(long offset, long limit, int maxBytes, boolean minOneBatch) throws IOException {
    for (int attempt = 1; ; attempt++) {
      Segment segment = segmentFor(offset);
      if (segment == null) {
        return ReadPiece.NONE;
      }
      try {
        return readSegment(segment, offset, limit, maxBytes, minOneBatch);
      } catch (NoSuchFileException e) {
        if (attempt >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /** The segment holding the batch for {@code offset}, or the next one after a gap. */
  private Segment segmentFor(long offset) {
    Map.Entry<Long, Segment> e = segments.floorEntry(offset);
    if (e == null) {
      e = segments.firstEntry();
    }
    while (e != null && (e.getValue().nextOffset() <= offset || e.getValue().isEmpty())) {
      e = segments.higherEntry(e.getKey());
    }
    return e == null ? null : e.getValue();
  }

  private ReadPiece readSegment(
      Segment segment, long offset, long limit, int maxBytes, boolean minOneBatch)
      throws IOException {
    Located at = locate(segment, offset, readSize(maxBytes));
    try {
      Found found = at.found;
      if (found.start < 0) {
        // No batch holds the offset here: the next one is cached, or in the next segment.
        long next = found.stoppedAt >= 0 ? found.stoppedAt : segment.nextOffset();
        return next > offset ? ReadPiece.skipTo(next) : ReadPiece.NONE;
      }
      ByteBuf range = at.block.retainedSlice(found.start, found.end - found.start);
      ReadPiece piece = cache.addStoreReadAndRead(range, offset, limit, maxBytes, minOneBatch);
      if (cache.enabled()) {
        // The rest of the block is cached: the next store read starts after it.
        lastRead = new LastRead(segment, found.nextOffset, at.position + found.end);
      } else if (!piece.isEmpty()) {
        lastRead =
            new LastRead(segment, piece.nextOffset(), at.position + found.start + piece.bytes());
      }
      return piece;
    } finally {
      at.block.release();
    }
  }

  /**
   * Reads about {@code blockSize} bytes from the batch holding {@code offset} (or the first after
   * it) into the cache, ahead of a reader that will ask for them. Nothing is kept if a cached range
   * was invalidated meanwhile (compaction, DeleteRecords), since the bytes may be stale.
   */
  void fill(long offset, int blockSize) throws IOException {
    long seen = cache.invalidations();
    Segment segment = segmentFor(offset);
    if (segment == null) {
      return;
    }
    Located at = locate(segment, offset, blockSize);
    try {
      Found found = at.found;
      if (found.start < 0) {
        return;
      }
      ByteBuf range = at.block.retainedSlice(found.start, found.end - found.start);
      if (cache.addReadAhead(range, seen)) {
        lastRead = new LastRead(segment, found.nextOffset, at.position + found.end);
      }
    } finally {
      at.block.release();
    }
  }

  /**
   * Where a {@link #fill} from {@code offset} of {@code blockSize} bytes will have read to: the end
   * of the segment holding the offset when the block reaches it (a sealed segment's, which cannot
   * grow), else -1, as the batch it stops at is known only once read.
   */
  long fillEnd(long offset, int blockSize) {
    Segment segment = segmentFor(offset);
    if (segment == null || !segment.isSealed()) {
      return -1;
    }
    long position = segment.index().positionFor(Math.max(0, offset - segment.baseOffset()));
    return segment.validLength() - position <= blockSize ? segment.nextOffset() : -1;
  }

  /** A block read from a segment at {@code position}, and where its batches for a read lie. */
  private record Located(ByteBuf block, long position, Found found) {}

  /**
   * Reads from the store the block where the batch holding {@code offset} starts (reading on when
   * that batch does not end in the first block), stopping at the first cached batch. The caller
   * releases the block.
   */
  private Located locate(Segment segment, long offset, int blockSize) throws IOException {
    long valid = segment.validLength();
    LastRead last = lastRead;
    long position;
    if (last != null && last.segment == segment && last.nextOffset == offset) {
      position = last.position;
    } else {
      position = segment.index().positionFor(Math.max(0, offset - segment.baseOffset()));
    }
    long stopAt = cache.nextCachedOffset(offset);
    int requested = (int) Math.min(valid - position, blockSize);
    ByteBuf block = store.read(segment.logPath(), position, requested);
    try {
      while (true) {
        Found found = find(block, offset, stopAt);
        if (found.start >= 0 || found.stoppedAt >= 0 || position + found.walkedTo >= valid) {
          Located at = new Located(block, position, found);
          block = null;
          return at;
        }
        if (found.walkedTo == 0 && block.writerIndex() < requested) {
          throw new IOException(
              segment.logPath() + ": shorter than its valid length " + valid + " at " + position);
        }
        // Nothing for the offset in this block, or its batch does not end in it: read on.
        position += found.walkedTo;
        requested = (int) Math.min(valid - position, Math.max(found.partialSize, blockSize));
        block.release();
        block = null;
        block = store.read(segment.logPath(), position, requested);
      }
    } finally {
      if (block != null) {
        block.release();
      }
    }
  }

  /**
   * Where the whole batches from the one holding {@code offset} up to (not including) the first
   * that starts at {@code stopAt} lie in {@code block}; start is -1 if none. walkedTo is where the
   * walk of whole batches ended; if a partial batch starts there, partialSize is its size.
   */
  private record Found(
      int start, int end, long nextOffset, int walkedTo, int partialSize, long stoppedAt) {}

  private static Found find(ByteBuf block, long offset, long stopAt) {
    int start = -1;
    int end = 0;
    long nextOffset = offset;
    RecordBatches.Walker walker = RecordBatches.walk(block);
    while (walker.hasNext()) {
      RecordBatch batch = walker.next();
      if (batch.baseOffset() >= stopAt) {
        return new Found(start, end, nextOffset, -1, 0, stopAt);
      }
      if (start < 0 && batch.lastOffset() >= offset) {
        start = batch.offset();
      }
      if (start >= 0) {
        end = batch.offset() + batch.sizeInBytes();
        nextOffset = batch.nextOffset();
      }
    }
    int walkedTo = walker.position();
    int partialSize = 0;
    if (walker.end() == RecordBatches.End.PARTIAL_BATCH
        && block.writerIndex() - walkedTo >= RecordBatch.LOG_OVERHEAD) {
      // Framing only: a batch starts with its base offset (int64) and its length (int32).
      partialSize = block.getInt(walkedTo + Long.BYTES) + RecordBatch.LOG_OVERHEAD;
    }
    return new Found(start, end, nextOffset, walkedTo, partialSize, -1);
  }
}
