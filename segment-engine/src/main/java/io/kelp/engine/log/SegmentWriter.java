package io.kelp.engine.log;

import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatches;
import io.kelp.engine.TopicPartition;
import io.kelp.engine.producer.ProducerStateTable;
import io.kelp.engine.segment.Segment;
import io.kelp.engine.segment.SegmentSidecar;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentNavigableMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only code that writes a partition's segment data: appends flushed chunks to the active
 * segment object, rolls to a new segment (sealing the old one with its sidecar), and after a failed
 * append makes sure no byte it cannot vouch for is ever read. Deciding what to write belongs to
 * {@link SegmentLog}; this class only writes. Used by one flush at a time.
 *
 * <p>It also keeps the producer state as of what is durable, which is what a sealed segment's
 * sidecar must hold.
 */
final class SegmentWriter {
  private static final Logger log = LoggerFactory.getLogger(SegmentWriter.class);

  /** Positions in the sparse index are int32, so no segment grows past this. */
  static final long MAX_SEGMENT_BYTES = Integer.MAX_VALUE;

  /**
   * How much the active segment grows between checkpoint sidecars (or a quarter of segment.bytes if
   * less), so that recovery after a crash scans at most this much of it.
   */
  static final long CHECKPOINT_INTERVAL_BYTES = 64L << 20;

  private final TopicPartition tp;
  private final ObjectStore store;
  private final String directory;
  private final Fence fence;
  private final ByteBufAllocator alloc;
  private final ConcurrentNavigableMap<Long, Segment> segments;
  private final ProducerStateTable durableProducers;
  private Segment active;
  private boolean suspect;
  private long checkpointedLength;

  /**
   * Store appends to the active segment by this writer; a recovered active segment starts at the
   * store's bound, since how many appends it already holds is unknown.
   */
  private long appendsToActive;

  /**
   * Whether the active segment has appends that readers of the store other than this one may not
   * see yet ({@link ObjectStore#publish}).
   */
  private boolean unpublished;

  SegmentWriter(
      TopicPartition tp,
      ObjectStore store,
      Fence fence,
      ByteBufAllocator alloc,
      ConcurrentNavigableMap<Long, Segment> segments,
      ProducerStateTable durableProducers,
      Segment active) {
    this.tp = tp;
    this.store = store;
    this.directory = fence.directory();
    this.fence = fence;
    this.alloc = alloc;
    this.segments = segments;
    this.durableProducers = durableProducers;
    this.active = active;
    this.checkpointedLength = active == null ? 0 : active.validLength();
    long bound = store.maxAppendsPerObject();
    this.appendsToActive = active == null || bound == Long.MAX_VALUE ? 0 : bound;
  }

  ProducerStateTable durableProducers() {
    return durableProducers;
  }

  Segment active() {
    return active;
  }

  /**
   * Appends chunks {@code from}, {@code from + 1}, ... that go to the same segment in one store
   * append, rolling first if the active segment is full or old. Returns the index after the last
   * chunk written; on an exception, nothing from {@code from} on was written.
   */
  int writeGroup(List<PendingChunk> chunks, int from, LogConfig config, long nowMs)
      throws IOException {
    if (suspect) {
      leaveUntrustedBytesBehind();
    }
    long limit = Math.min(config.segmentBytes(), MAX_SEGMENT_BYTES);
    PendingChunk first = chunks.get(from);
    if (active != null
        && active.validLength() > 0
        && (active.validLength() + first.size() > limit
            || nowMs - active.createdMs() >= config.segmentMs()
            || appendsToActive >= store.maxAppendsPerObject())) {
      seal();
    }
    if (active == null) {
      active = new Segment(directory, first.firstOffset, 0, nowMs);
      segments.put(active.baseOffset(), active);
      checkpointedLength = 0;
      appendsToActive = 0;
    }
    int to = from;
    long bytes = 0;
    while (to < chunks.size()) {
      int size = chunks.get(to).size();
      if (to > from && active.validLength() + bytes + size > limit) {
        break;
      }
      bytes += size;
      to++;
    }
    unpublished = true;
    append(chunks.subList(from, to));
    appendsToActive++;
    long position = active.validLength();
    for (PendingChunk chunk : chunks.subList(from, to)) {
      RecordBatches.Walker walker = RecordBatches.walk(chunk.data);
      while (walker.hasNext()) {
        RecordBatch batch = walker.next();
        active.onBatch(batch, position, config.indexIntervalBytes());
        durableProducers.apply(batch);
        position += batch.sizeInBytes();
      }
    }
    active.setValidLength(position);
    if (position - checkpointedLength >= Math.min(CHECKPOINT_INTERVAL_BYTES, limit / 4)) {
      checkpoint();
    }
    return to;
  }

  private void append(List<PendingChunk> group) throws IOException {
    ByteBuf data;
    if (group.size() == 1) {
      data = group.get(0).data.retainedDuplicate();
    } else {
      CompositeByteBuf composite = alloc.compositeDirectBuffer(group.size());
      for (PendingChunk chunk : group) {
        composite.addComponent(true, chunk.data.retainedDuplicate());
      }
      data = composite;
    }
    try {
      store.append(active.logPath(), data, fence);
    } catch (FencedException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // Some of the bytes may have reached the object; find out before writing more.
      suspect = true;
      throw e;
    } finally {
      data.release();
    }
  }

  /**
   * After a failed append the object may hold a partial write past the valid length. The store
   * cannot truncate, so if it does, the segment is sealed at its valid length (the sidecar says
   * where the data ends) and writing continues in a new segment.
   */
  private void leaveUntrustedBytesBehind() throws IOException {
    Optional<ObjectInfo> info = store.stat(active.logPath());
    long size = info.map(ObjectInfo::size).orElse(0L);
    if (size != active.validLength()) {
      log.warn(
          "{}: {} has {} bytes after a failed append but {} are valid; sealing it there and"
              + " continuing in a new segment",
          tp,
          active.logPath(),
          size,
          active.validLength());
      seal();
    }
    suspect = false;
  }

  /**
   * Seals the active segment: writes its sidecar (a segment with no valid byte is deleted instead,
   * so a new segment can take its name). The next write starts a new segment.
   */
  void seal() throws IOException {
    if (active == null) {
      return;
    }
    if (active.validLength() == 0) {
      checkOwnership();
      store.delete(active.logPath());
      store.delete(active.indexPath());
      segments.remove(active.baseOffset(), active);
      active = null;
      return;
    }
    publish();
    ByteBuf sidecar = SegmentSidecar.encode(active, true, durableProducers, alloc);
    try {
      store.put(active.indexPath(), sidecar, fence);
    } finally {
      sidecar.release();
    }
    active.seal();
    log.debug("{}: sealed {}", tp, active);
    active = null;
  }

  /**
   * Makes the active segment's appends visible to every reader of the store ({@link
   * ObjectStore#publish}): when the log has been idle a while, and before a segment is sealed.
   */
  void publish() throws IOException {
    if (unpublished && active != null) {
      store.publish(active.logPath(), fence);
    }
    unpublished = false;
  }

  /**
   * Writes the active segment's sidecar without sealing it: on close, so a clean restart need not
   * scan, and every {@link #CHECKPOINT_INTERVAL_BYTES} so a crash scans little.
   */
  void checkpoint() throws IOException {
    if (active == null || active.validLength() == 0) {
      return;
    }
    ByteBuf sidecar = SegmentSidecar.encode(active, false, durableProducers, alloc);
    try {
      store.put(active.indexPath(), sidecar, fence);
    } finally {
      sidecar.release();
    }
    checkpointedLength = active.validLength();
  }

  /** The store has no fenced delete: make sure no later owner has claimed the directory. */
  void checkOwnership() throws IOException {
    long recorded = store.claim(directory, fence.epoch());
    if (recorded != fence.epoch()) {
      throw new FencedException(directory + " is owned with epoch " + recorded);
    }
  }
}
