package io.kelp.engine.segment;

import io.kelp.codec.record.RecordBatch;

/**
 * One segment of a partition log: which object holds it, how many of its bytes are valid whole
 * batches, the offsets it covers, its largest timestamp and its sparse indexes.
 *
 * <p>A segment is either active (the flusher appends to it; {@link #validLength()} grows as data
 * becomes durable) or sealed (immutable, with a sidecar in the store). Only one thread writes a
 * segment at a time; readers on other threads see a consistent prefix because {@link
 * #setValidLength} is published after the metadata and indexes of the batches it covers.
 */
public final class Segment {
  private final String directory;
  private final long baseOffset;
  private final int generation;
  private final long createdMs;
  private final SegmentIndex index;
  private volatile long validLength;
  private volatile long nextOffset;
  private volatile long maxTimestamp = RecordBatch.NO_TIMESTAMP;
  private volatile long offsetOfMaxTimestamp = -1;
  private volatile boolean sealed;
  private long bytesSinceIndexEntry;
  private long maxTimestampBefore = RecordBatch.NO_TIMESTAMP;

  /** An empty segment starting at {@code baseOffset}. */
  public Segment(String directory, long baseOffset, int generation, long createdMs) {
    this(directory, baseOffset, generation, createdMs, new SegmentIndex());
    this.nextOffset = baseOffset;
  }

  Segment(String directory, long baseOffset, int generation, long createdMs, SegmentIndex index) {
    this.directory = directory;
    this.baseOffset = baseOffset;
    this.generation = generation;
    this.createdMs = createdMs;
    this.index = index;
  }

  /** Restores a segment from its sidecar. */
  public static Segment restoredFrom(String directory, SegmentSidecar.Contents c) {
    Segment s = new Segment(directory, c.baseOffset(), c.generation(), c.createdMs(), c.index());
    s.validLength = c.validLength();
    s.nextOffset = c.lastOffset() + 1;
    s.maxTimestamp = c.maxTimestamp();
    s.offsetOfMaxTimestamp = c.offsetOfMaxTimestamp();
    s.maxTimestampBefore = c.maxTimestamp();
    // Continue indexing as if an entry had just been made: the next one comes an interval later.
    s.bytesSinceIndexEntry = 0;
    return s;
  }

  public String directory() {
    return directory;
  }

  public long baseOffset() {
    return baseOffset;
  }

  public int generation() {
    return generation;
  }

  /** The store path of the data object. */
  public String logPath() {
    return directory + "/" + SegmentFile.logName(baseOffset, generation);
  }

  /** The store path of the sidecar. */
  public String indexPath() {
    return directory + "/" + SegmentFile.indexName(baseOffset, generation);
  }

  public SegmentIndex index() {
    return index;
  }

  /** Bytes of whole valid batches at the start of the object; nothing after them is read. */
  public long validLength() {
    return validLength;
  }

  /** The offset after the last one the segment covers (its base offset while empty). */
  public long nextOffset() {
    return nextOffset;
  }

  public long lastOffset() {
    return nextOffset - 1;
  }

  public boolean isEmpty() {
    return validLength == 0;
  }

  public long maxTimestamp() {
    return maxTimestamp;
  }

  /** The base offset of the first batch holding {@link #maxTimestamp()}, or -1. */
  public long offsetOfMaxTimestamp() {
    return offsetOfMaxTimestamp;
  }

  /** When the log started writing this segment, on the broker's clock (segment.ms). */
  public long createdMs() {
    return createdMs;
  }

  public boolean isSealed() {
    return sealed;
  }

  public void seal() {
    sealed = true;
  }

  /**
   * Records a batch the writer has placed at {@code position}; call {@link #setValidLength} once
   * its bytes are durable.
   */
  public void onBatch(RecordBatch batch, long position, int indexIntervalBytes) {
    int size = batch.sizeInBytes();
    int relative = (int) (batch.baseOffset() - baseOffset);
    if (position > 0 && bytesSinceIndexEntry >= indexIntervalBytes) {
      index.addOffset(relative, (int) position);
      index.addTime(maxTimestampBefore, relative);
      bytesSinceIndexEntry = 0;
    }
    bytesSinceIndexEntry += size;
    long ts = batch.maxTimestamp();
    if (ts > maxTimestamp) {
      maxTimestamp = ts;
      offsetOfMaxTimestamp = batch.baseOffset();
    }
    maxTimestampBefore = Math.max(maxTimestampBefore, ts);
    nextOffset = Math.max(nextOffset, batch.nextOffset());
  }

  /** Publishes the bytes up to {@code length} as valid, after their batches were recorded. */
  public void setValidLength(long length) {
    validLength = length;
  }

  /** For a cleaned segment: the offsets it covers end where the original segments' did. */
  public void coverUpTo(long nextOffset) {
    this.nextOffset = Math.max(this.nextOffset, nextOffset);
  }

  @Override
  public String toString() {
    return String.format(
        "segment %s (offsets %d-%d, %d bytes%s)",
        logPath(), baseOffset, nextOffset - 1, validLength, sealed ? ", sealed" : "");
  }
}
