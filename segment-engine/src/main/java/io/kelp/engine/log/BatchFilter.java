package io.kelp.engine.log;

import io.kelp.codec.record.InvalidRecordException;
import io.kelp.codec.record.Record;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatchBuilder;
import io.kelp.codec.record.RecordHeader;
import io.kelp.codec.record.RecordIterator;
import io.kelp.codec.record.TimestampType;
import io.kelp.engine.producer.ProducerEntry;
import io.kelp.engine.producer.ProducerStateTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides what compaction keeps of one batch: a record stays unless a later record has its key (the
 * {@link KeyOffsetMap} says so) or it is a tombstone whose delete horizon has passed. Control
 * batches and a producer's last batch stay whole, so transaction markers and producer state
 * survive. A batch that keeps everything is copied as it is; one that keeps nothing goes; any other
 * is rebuilt with the codec's builder, keeping base offset, record offsets, producer fields, leader
 * epoch, timestamp type and compression.
 *
 * <p>Tombstones follow Kafka (KIP-534): the first clean that keeps a tombstone stamps its batch
 * with a delete horizon of now + delete.retention.ms; a later clean past the horizon drops it.
 */
final class BatchFilter {
  private final KeyOffsetMap map;
  private final ProducerStateTable producers;
  private final ByteBufAllocator alloc;
  private final long nowMs;
  private final long deleteRetentionMs;
  private long earliestHorizonMs = Long.MAX_VALUE;

  /** The outcome for one batch. */
  enum Verdict {
    KEEP,
    DROP,
    REBUILT
  }

  private Verdict verdict;
  private ByteBuf rebuilt;

  BatchFilter(
      KeyOffsetMap map,
      ProducerStateTable producers,
      ByteBufAllocator alloc,
      long nowMs,
      long deleteRetentionMs) {
    this.map = map;
    this.producers = producers;
    this.alloc = alloc;
    this.nowMs = nowMs;
    this.deleteRetentionMs = deleteRetentionMs;
  }

  /** The earliest delete horizon this filter stamped or kept, or Long.MAX_VALUE. */
  long earliestHorizonMs() {
    return earliestHorizonMs;
  }

  private record Kept(
      long offset, long timestamp, byte[] key, byte[] value, List<RecordHeader> h) {}

  /**
   * Filters {@code batch}; then {@link #verdict()} says what to do and, for REBUILT, {@link
   * #takeRebuilt()} hands over the new batch.
   */
  void filter(RecordBatch batch) {
    rebuilt = null;
    if (batch.isControl() || isProducersLastBatch(batch)) {
      verdict = Verdict.KEEP;
      return;
    }
    List<Kept> kept = new ArrayList<>();
    int count = 0;
    boolean needsHorizon = false;
    try (RecordIterator records = batch.records(TimeLookups.MAX_UNCOMPRESSED_BYTES, alloc)) {
      while (records.hasNext()) {
        Record r = records.next();
        count++;
        boolean keep = r.key() == null || map.get(r.key()) <= r.offset();
        if (keep && r.key() != null && r.value() == null) {
          if (batch.hasDeleteHorizon()) {
            keep = nowMs < batch.deleteHorizonMs();
          } else {
            needsHorizon = true;
          }
        }
        if (keep) {
          kept.add(new Kept(r.offset(), r.timestamp(), r.keyBytes(), r.valueBytes(), r.headers()));
        }
      }
    } catch (InvalidRecordException e) {
      // A batch the cleaner cannot read is kept as it is rather than lost.
      verdict = Verdict.KEEP;
      return;
    }
    if (kept.isEmpty()) {
      verdict = Verdict.DROP;
      return;
    }
    long horizon = batch.hasDeleteHorizon() ? batch.deleteHorizonMs() : RecordBatch.NO_TIMESTAMP;
    if (needsHorizon) {
      horizon = nowMs + deleteRetentionMs;
    }
    if (horizon != RecordBatch.NO_TIMESTAMP && hasTombstone(kept)) {
      earliestHorizonMs = Math.min(earliestHorizonMs, horizon);
    }
    if (kept.size() == count && !needsHorizon) {
      verdict = Verdict.KEEP;
      return;
    }
    rebuilt = rebuild(batch, kept, horizon);
    verdict = Verdict.REBUILT;
  }

  private static boolean hasTombstone(List<Kept> kept) {
    for (Kept k : kept) {
      if (k.key != null && k.value == null) {
        return true;
      }
    }
    return false;
  }

  private boolean isProducersLastBatch(RecordBatch batch) {
    if (!batch.hasProducerId()) {
      return false;
    }
    ProducerEntry entry = producers.get(batch.producerId());
    return entry != null && entry.lastOffset() == batch.lastOffset();
  }

  private ByteBuf rebuild(RecordBatch batch, List<Kept> kept, long horizon) {
    RecordBatchBuilder b =
        new RecordBatchBuilder()
            .baseOffset(batch.baseOffset())
            .partitionLeaderEpoch(batch.partitionLeaderEpoch())
            .producer(batch.producerId(), batch.producerEpoch(), batch.baseSequence())
            .transactional(batch.isTransactional())
            .compression(batch.compression());
    if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
      b.logAppendTime(batch.maxTimestamp());
    }
    if (horizon != RecordBatch.NO_TIMESTAMP) {
      b.deleteHorizonMs(horizon);
    }
    for (Kept k : kept) {
      b.appendWithOffset(k.offset, k.timestamp, k.key, k.value, k.h);
    }
    return b.build(alloc);
  }

  Verdict verdict() {
    return verdict;
  }

  /** The rebuilt batch; the caller owns and releases it. */
  ByteBuf takeRebuilt() {
    ByteBuf out = rebuilt;
    rebuilt = null;
    return out;
  }
}
