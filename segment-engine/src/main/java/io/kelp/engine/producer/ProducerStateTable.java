package io.kelp.engine.producer;

import io.kelp.codec.record.InvalidRecordException;
import io.kelp.codec.record.Record;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordIterator;
import io.kelp.codec.record.TransactionMarker;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The idempotent producers of one partition: for each producer id its epoch and last batches (see
 * {@link ProducerEntry}). Appends from clients are checked with {@link #begin()} the way a Kafka
 * leader checks them; batches read back from the log (recovery, or the flusher following what is
 * durable) are applied unchecked with {@link #apply}. Thread-safe.
 *
 * <p>The rules, as Kafka applies them to a data batch of producer P with epoch E and sequences
 * F..L:
 *
 * <ul>
 *   <li>P unknown (never seen, or expired, or its batches deleted): accepted with any sequence.
 *   <li>E lower than P's epoch: INVALID_PRODUCER_EPOCH.
 *   <li>E equal and F..L equal to one of the last {@value ProducerEntry#BATCHES_TO_RETAIN} batches:
 *       a DUPLICATE, answered with that batch's offsets and not appended again.
 *   <li>E higher: F must be 0, else OUT_OF_ORDER_SEQUENCE.
 *   <li>E equal: F must follow P's last sequence (Integer.MAX_VALUE is followed by 0), else
 *       OUT_OF_ORDER_SEQUENCE.
 * </ul>
 *
 * A transaction marker (control batch) only needs an epoch at least P's.
 */
public final class ProducerStateTable {
  /** The default of Kafka's producer.id.expiration.ms: one day. */
  public static final long DEFAULT_EXPIRATION_MS = 24L * 3600 * 1000;

  private final Map<Long, ProducerEntry> entries = new HashMap<>();

  /** What a check found. */
  public enum Outcome {
    OK,
    DUPLICATE,
    OUT_OF_ORDER_SEQUENCE,
    INVALID_PRODUCER_EPOCH
  }

  public synchronized ProducerEntry get(long producerId) {
    return entries.get(producerId);
  }

  public synchronized int size() {
    return entries.size();
  }

  public synchronized List<ProducerEntry> entries() {
    return new ArrayList<>(entries.values());
  }

  public synchronized ProducerStateTable copy() {
    ProducerStateTable copy = new ProducerStateTable();
    copy.entries.putAll(entries);
    return copy;
  }

  /** Starts checking the batches of one append. */
  public ProducerAppend begin() {
    return new ProducerAppend();
  }

  /**
   * Applies a batch read from the log, with its offsets assigned, without checking it: recovery and
   * replay trust what the log holds.
   */
  public synchronized void apply(RecordBatch batch) {
    if (!batch.hasProducerId()) {
      return;
    }
    long producerId = batch.producerId();
    ProducerEntry entry = entries.get(producerId);
    if (entry == null) {
      entry = empty(producerId, batch.producerEpoch());
    }
    entries.put(producerId, next(entry, batch, batch.baseOffset()));
  }

  /**
   * Forgets producers whose last batch lies below {@code logStartOffset}: retention or
   * DeleteRecords removed it, as Kafka does.
   */
  public synchronized void removeBefore(long logStartOffset) {
    entries.values().removeIf(e -> e.lastOffset() < logStartOffset);
  }

  /**
   * Forgets producers without an open transaction whose last batch is older than {@code
   * expirationMs} (producer.id.expiration.ms).
   */
  public synchronized void expire(long nowMs, long expirationMs) {
    entries
        .values()
        .removeIf(e -> e.currentTxnFirstOffset() < 0 && nowMs - e.lastTimestamp() >= expirationMs);
  }

  private static ProducerEntry empty(long producerId, short epoch) {
    return new ProducerEntry(producerId, epoch, -1, -1, RecordBatch.NO_TIMESTAMP, List.of());
  }

  private static ProducerEntry next(ProducerEntry entry, RecordBatch batch, long firstOffset) {
    if (batch.isControl()) {
      return entry.withMarker(
          batch.producerEpoch(), coordinatorEpoch(batch, entry), batch.maxTimestamp());
    }
    long lastOffset = firstOffset + batch.lastOffsetDelta();
    BatchMetadata meta =
        new BatchMetadata(
            batch.baseSequence(),
            batch.lastSequence(),
            firstOffset,
            lastOffset,
            batch.maxTimestamp());
    return entry.withBatch(batch.producerEpoch(), meta, batch.isTransactional());
  }

  private static int coordinatorEpoch(RecordBatch batch, ProducerEntry entry) {
    try (RecordIterator records = batch.records(batch.sizeInBytes() * 4 + 1024)) {
      if (records.hasNext()) {
        Record record = records.next();
        return TransactionMarker.read(record).coordinatorEpoch();
      }
    } catch (InvalidRecordException e) {
      // A control batch we cannot read keeps the known coordinator epoch.
    }
    return entry.coordinatorEpoch();
  }

  /**
   * The checks of one append of one or more batches, staged so that nothing changes unless every
   * batch passes; {@link #commit()} then applies them. Not thread-safe; the caller holds the log's
   * append lock from {@link #begin()} to {@link #commit()}.
   */
  public final class ProducerAppend {
    private Map<Long, ProducerEntry> staged;
    private Outcome outcome = Outcome.OK;
    private BatchMetadata duplicate;
    private String message;

    private ProducerAppend() {}

    /**
     * Checks {@code batch}, which will get offsets from {@code firstOffset}. Returns false, with
     * {@link #outcome()} saying why, when the append must not go ahead.
     */
    public boolean check(RecordBatch batch, long firstOffset) {
      if (!batch.hasProducerId()) {
        return true;
      }
      long producerId = batch.producerId();
      ProducerEntry entry = staged != null ? staged.get(producerId) : null;
      if (entry == null) {
        entry = get(producerId);
      }
      short epoch = batch.producerEpoch();
      if (entry == null) {
        stage(next(empty(producerId, epoch), batch, firstOffset));
        return true;
      }
      if (!batch.isControl()) {
        BatchMetadata dup = entry.findDuplicate(epoch, batch.baseSequence(), batch.lastSequence());
        if (dup != null) {
          outcome = Outcome.DUPLICATE;
          duplicate = dup;
          message =
              "duplicate of the batch at offsets " + dup.firstOffset() + "-" + dup.lastOffset();
          return false;
        }
      }
      if (epoch < entry.epoch()) {
        return fail(
            Outcome.INVALID_PRODUCER_EPOCH,
            String.format(
                "producer %d epoch %d is older than the current epoch %d",
                producerId, epoch, entry.epoch()));
      }
      if (!batch.isControl() && !inSequence(entry, epoch, batch.baseSequence())) {
        return fail(
            Outcome.OUT_OF_ORDER_SEQUENCE,
            String.format(
                "producer %d epoch %d: sequence %d does not follow %d (epoch %d)",
                producerId, epoch, batch.baseSequence(), entry.lastSequence(), entry.epoch()));
      }
      stage(next(entry, batch, firstOffset));
      return true;
    }

    private boolean inSequence(ProducerEntry entry, short epoch, int firstSequence) {
      if (epoch != entry.epoch()) {
        return firstSequence == 0;
      }
      int last = entry.lastSequence();
      return firstSequence == last + 1L || (firstSequence == 0 && last == Integer.MAX_VALUE);
    }

    private boolean fail(Outcome why, String text) {
      outcome = why;
      message = text;
      return false;
    }

    private void stage(ProducerEntry entry) {
      if (staged == null) {
        staged = new HashMap<>(4);
      }
      staged.put(entry.producerId(), entry);
    }

    public Outcome outcome() {
      return outcome;
    }

    /** The original batch, when {@link #outcome()} is DUPLICATE. */
    public BatchMetadata duplicate() {
      return duplicate;
    }

    public String message() {
      return message;
    }

    /** Applies every staged change to the table. */
    public void commit() {
      if (staged != null) {
        synchronized (ProducerStateTable.this) {
          entries.putAll(staged);
        }
      }
    }
  }

  /**
   * Writes the table as {@code count} entries (see the producer entry layout in {@link
   * io.kelp.engine.segment.SegmentSidecar}); returns the count.
   */
  public synchronized int writeTo(ByteBuf out) {
    for (ProducerEntry e : entries.values()) {
      out.writeLong(e.producerId())
          .writeShort(e.epoch())
          .writeInt(e.coordinatorEpoch())
          .writeLong(e.currentTxnFirstOffset())
          .writeLong(e.lastTimestamp())
          .writeByte(e.batches().size());
      for (BatchMetadata b : e.batches()) {
        out.writeInt(b.firstSequence())
            .writeInt(b.lastSequence())
            .writeLong(b.firstOffset())
            .writeLong(b.lastOffset())
            .writeLong(b.timestamp());
      }
    }
    return entries.size();
  }

  /** The smallest encoded entry: a producer with no batches. */
  public static final int MIN_ENTRY_SIZE = 8 + 2 + 4 + 8 + 8 + 1;

  private static final int BATCH_SIZE = 4 + 4 + 8 + 8 + 8;

  /**
   * Reads {@code count} entries written by {@link #writeTo}; throws IllegalArgumentException if the
   * bytes do not hold them.
   */
  public static ProducerStateTable readFrom(ByteBuf in, int count) {
    ProducerStateTable table = new ProducerStateTable();
    for (int i = 0; i < count; i++) {
      if (in.readableBytes() < MIN_ENTRY_SIZE) {
        throw new IllegalArgumentException("producer entry " + i + " is cut short");
      }
      long producerId = in.readLong();
      short epoch = in.readShort();
      int coordinatorEpoch = in.readInt();
      long txnFirst = in.readLong();
      long lastTimestamp = in.readLong();
      int batches = in.readUnsignedByte();
      if (batches > ProducerEntry.BATCHES_TO_RETAIN || in.readableBytes() < batches * BATCH_SIZE) {
        throw new IllegalArgumentException("producer entry " + i + ": bad batch count " + batches);
      }
      List<BatchMetadata> list = new ArrayList<>(batches);
      for (int b = 0; b < batches; b++) {
        list.add(
            new BatchMetadata(
                in.readInt(), in.readInt(), in.readLong(), in.readLong(), in.readLong()));
      }
      table.entries.put(
          producerId,
          new ProducerEntry(producerId, epoch, coordinatorEpoch, txnFirst, lastTimestamp, list));
    }
    return table;
  }
}
