package io.kelp.engine.log;

import io.kelp.codec.record.RecordBatch;
import io.kelp.engine.segment.SegmentScanner;
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
   *
   * <p>Segments are read as recovery would see them: leftovers of interrupted compaction are
   * skipped, a sealed segment is read up to the valid length its sidecar records, any other up to
   * its first invalid batch (CRCs are checked), and never past the next segment's base offset.
   * Batches below the log start offset (deleted, but not yet removed) are skipped.
   */
  public static void readBatches(
      ObjectStore store, String partitionDir, long fromOffset, BatchVisitor visitor)
      throws IOException {
    long logStart =
        PartitionMeta.read(store, partitionDir).map(PartitionMeta::logStartOffset).orElse(0L);
    long from = Math.max(fromOffset, logStart);
    SegmentListing listing = SegmentListing.of(store, partitionDir);
    int n = listing.live.size();
    long nextOffset = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      SegmentListing.Entry e = listing.live.get(i);
      long nextBase = i + 1 < n ? listing.live.get(i + 1).baseOffset : Long.MAX_VALUE;
      boolean trusted = e.sidecar != null && e.sidecar.lastOffset() < nextBase;
      if (trusted && e.sidecar.lastOffset() < from) {
        continue;
      }
      long end = trusted && e.sidecar.sealed() ? e.sidecar.validLength() : e.logSize;
      long position = trusted ? e.sidecar.index().positionFor(Math.max(0, from - e.baseOffset)) : 0;
      try (SegmentScanner scanner =
          new SegmentScanner(
              store,
              partitionDir + "/" + e.logName(),
              position,
              end,
              Math.max(nextOffset, e.baseOffset),
              nextBase,
              SegmentScanner.DEFAULT_BLOCK_SIZE,
              true)) {
        while (scanner.next()) {
          RecordBatch batch = scanner.batch();
          nextOffset = batch.nextOffset();
          if (batch.lastOffset() < from) {
            continue;
          }
          if (!visitor.visit(batch.slice())) {
            return;
          }
        }
      }
    }
  }
}
