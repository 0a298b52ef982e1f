package io.kelp.engine.producer;

import java.util.ArrayList;
import java.util.List;

/**
 * The state of one producer id in one partition: its epoch and its last few batches. Immutable;
 * appends make new entries.
 *
 * @param producerId the producer id
 * @param epoch the latest epoch seen
 * @param coordinatorEpoch the coordinator epoch of the last transaction marker, or -1
 * @param currentTxnFirstOffset the first offset of the producer's open transaction, or -1
 * @param lastTimestamp the max timestamp of its last batch, for expiry
 * @param batches its last batches in the current epoch, oldest first, at most {@link
 *     #BATCHES_TO_RETAIN}
 */
public record ProducerEntry(
    long producerId,
    short epoch,
    int coordinatorEpoch,
    long currentTxnFirstOffset,
    long lastTimestamp,
    List<BatchMetadata> batches) {

  /** How many batches a producer may have in flight, and so how many a retry can repeat. */
  public static final int BATCHES_TO_RETAIN = 5;

  public ProducerEntry {
    batches = List.copyOf(batches);
  }

  /** The sequence of the last record appended in the current epoch, or -1 if none. */
  public int lastSequence() {
    return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastSequence();
  }

  /** The offset of the producer's last record in the log, or -1 if none. */
  public long lastOffset() {
    return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastOffset();
  }

  /** A retained batch with exactly these sequences in epoch {@code epoch}, or null. */
  public BatchMetadata findDuplicate(short epoch, int firstSequence, int lastSequence) {
    if (epoch != this.epoch) {
      return null;
    }
    for (BatchMetadata batch : batches) {
      if (batch.firstSequence() == firstSequence && batch.lastSequence() == lastSequence) {
        return batch;
      }
    }
    return null;
  }

  /** This entry after a data batch: a new epoch forgets the batches of the old one. */
  ProducerEntry withBatch(short batchEpoch, BatchMetadata batch, boolean transactional) {
    List<BatchMetadata> kept = new ArrayList<>(BATCHES_TO_RETAIN);
    if (batchEpoch == epoch) {
      int from = Math.max(0, batches.size() - (BATCHES_TO_RETAIN - 1));
      kept.addAll(batches.subList(from, batches.size()));
    }
    kept.add(batch);
    long txnFirst = currentTxnFirstOffset;
    if (transactional && txnFirst < 0) {
      txnFirst = batch.firstOffset();
    }
    return new ProducerEntry(
        producerId, batchEpoch, coordinatorEpoch, txnFirst, batch.timestamp(), kept);
  }

  /** This entry after a transaction marker written with {@code markerEpoch}. */
  ProducerEntry withMarker(short markerEpoch, int markerCoordinatorEpoch, long timestamp) {
    List<BatchMetadata> kept = markerEpoch == epoch ? batches : List.of();
    return new ProducerEntry(producerId, markerEpoch, markerCoordinatorEpoch, -1, timestamp, kept);
  }
}
