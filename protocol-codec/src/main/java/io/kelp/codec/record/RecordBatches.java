package io.kelp.codec.record;

import io.kelp.codec.record.ValidationResult.Code;
import io.netty.buffer.ByteBuf;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Batches laid end to end, as in a Produce request's records, a Fetch response or a log segment:
 * walking them, and checking what a client produced.
 *
 * <p>Buffer ownership: nothing here retains or releases the buffer; views and results are valid
 * while the caller keeps it alive.
 */
public final class RecordBatches {
  private RecordBatches() {}

  /** How a walk ended. */
  public enum End {
    /** Every byte belonged to a whole batch. */
    COMPLETE,
    /** The bytes end inside a batch; normal at the end of a Fetch response. */
    PARTIAL_BATCH,
    /** A batchLength smaller than a batch header: nothing after it can be trusted. */
    BAD_LENGTH,
    /** A batch whose magic is not 2. */
    BAD_MAGIC
  }

  /** Walks the batches in {@code records}' readable bytes, leaving its indexes alone. */
  public static Walker walk(ByteBuf records) {
    return new Walker(records, records.readerIndex(), records.writerIndex());
  }

  /**
   * Yields a view of each whole batch in turn and stops at the end of the bytes, at a trailing
   * partial batch, or at a batch it cannot frame; {@link #end()} then says which.
   */
  public static final class Walker implements Iterator<RecordBatch> {
    private final ByteBuf buf;
    private final int limit;
    private int pos;
    private RecordBatch next;
    private End end;
    private String problem;

    private Walker(ByteBuf buf, int from, int limit) {
      this.buf = buf;
      this.pos = from;
      this.limit = limit;
    }

    @Override
    public boolean hasNext() {
      if (next == null && end == null) {
        advance();
      }
      return next != null;
    }

    @Override
    public RecordBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      RecordBatch batch = next;
      next = null;
      return batch;
    }

    private void advance() {
      int left = limit - pos;
      if (left == 0) {
        stop(End.COMPLETE, null);
        return;
      }
      if (left < RecordBatch.LOG_OVERHEAD) {
        stop(End.PARTIAL_BATCH, "a partial batch of " + left + " bytes at byte " + pos);
        return;
      }
      int length = buf.getInt(pos + RecordBatch.BATCH_LENGTH_OFFSET);
      if (length < RecordBatch.MIN_BATCH_LENGTH) {
        stop(
            End.BAD_LENGTH,
            String.format(
                "batchLength %d at byte %d is less than the minimum %d",
                length, pos, RecordBatch.MIN_BATCH_LENGTH));
        return;
      }
      if (left > RecordBatch.MAGIC_OFFSET) {
        byte magic = buf.getByte(pos + RecordBatch.MAGIC_OFFSET);
        if (magic != RecordBatch.MAGIC_V2) {
          stop(End.BAD_MAGIC, "unsupported magic " + magic + " in the batch at byte " + pos);
          return;
        }
      }
      if (length > left - RecordBatch.LOG_OVERHEAD) {
        stop(
            End.PARTIAL_BATCH,
            String.format(
                "a partial batch at byte %d: batchLength %d but %d bytes follow it",
                pos, length, left - RecordBatch.LOG_OVERHEAD));
        return;
      }
      next = RecordBatch.trusted(buf, pos);
      pos += length + RecordBatch.LOG_OVERHEAD;
    }

    private void stop(End how, String why) {
      end = how;
      problem = why;
    }

    /** How the walk ended, once {@link #hasNext()} has returned false; null before. */
    public End end() {
      return end;
    }

    /** What stopped the walk early, or null if it reached the end. */
    public String problem() {
      return problem;
    }

    /** The buffer index the walk has reached: after the last batch yielded. */
    public int position() {
      return pos;
    }

    /** The bytes not yielded as batches, once the walk has ended. */
    public int trailingBytes() {
      return limit - pos;
    }
  }

  /**
   * Checks the records of one partition in a Produce request (v3 and later) the way a Kafka leader
   * does before appending: exactly one magic-2 batch that fills the bytes, no larger than {@code
   * maxBatchBytes}, with a valid CRC, a codec the request version allows, baseOffset 0, a positive
   * record count equal to lastOffsetDelta + 1, no control flag, and a base sequence whenever there
   * is a producer id. Reads only the header and computes the CRC; see {@link #validateRecords} for
   * the records themselves. Kafka drops bytes after the first batch silently; we reject them.
   */
  public static ValidationResult validateForProduce(
      ByteBuf records, int produceVersion, int maxBatchBytes) {
    Walker walker = walk(records);
    if (!walker.hasNext()) {
      return switch (walker.end()) {
        case COMPLETE -> ValidationResult.invalid(Code.NO_BATCHES, "no record batch");
        case BAD_MAGIC -> ValidationResult.invalid(Code.UNSUPPORTED_MAGIC, walker.problem());
        case BAD_LENGTH, PARTIAL_BATCH ->
            ValidationResult.invalid(Code.CORRUPT_LENGTH, walker.problem());
      };
    }
    RecordBatch batch = walker.next();
    if (walker.hasNext()) {
      return ValidationResult.invalid(
          Code.MULTIPLE_BATCHES, "more than one record batch for the partition");
    }
    if (walker.end() != End.COMPLETE) {
      return ValidationResult.invalid(
          Code.CORRUPT_LENGTH,
          walker.trailingBytes() + " bytes after the batch: " + walker.problem());
    }
    if (batch.sizeInBytes() > maxBatchBytes) {
      return ValidationResult.invalid(
          Code.BATCH_TOO_LARGE,
          "batch of " + batch.sizeInBytes() + " bytes exceeds the maximum of " + maxBatchBytes);
    }
    if (!batch.isCrcValid()) {
      return ValidationResult.invalid(
          Code.CRC_MISMATCH,
          "batch is corrupt: stored crc " + batch.crc() + ", computed " + batch.computeCrc());
    }
    return validateHeader(batch, produceVersion);
  }

  private static ValidationResult validateHeader(RecordBatch batch, int produceVersion) {
    Compression compression = Compression.forIdOrNull(batch.compressionId());
    if (compression == null) {
      return ValidationResult.invalid(
          Code.UNKNOWN_COMPRESSION, "unknown compression codec id " + batch.compressionId());
    }
    if (compression == Compression.ZSTD && produceVersion < 7) {
      return ValidationResult.invalid(
          Code.UNSUPPORTED_COMPRESSION,
          "Produce v" + produceVersion + " does not allow zstd; v7 or later is needed");
    }
    if (batch.baseOffset() != 0) {
      return ValidationResult.invalid(
          Code.INVALID_BASE_OFFSET, "baseOffset is " + batch.baseOffset() + ", not 0");
    }
    long count = batch.recordCount();
    long countFromOffsets = (long) batch.lastOffsetDelta() + 1;
    if (countFromOffsets <= 0) {
      return ValidationResult.invalid(
          Code.INVALID_RECORD_COUNT, "invalid lastOffsetDelta " + batch.lastOffsetDelta());
    }
    if (count <= 0 || count != countFromOffsets) {
      return ValidationResult.invalid(
          Code.INVALID_RECORD_COUNT,
          "record count " + count + " does not match lastOffsetDelta " + batch.lastOffsetDelta());
    }
    if (batch.isControl()) {
      return ValidationResult.invalid(Code.CONTROL_BATCH, "clients may not write control batches");
    }
    if (batch.hasProducerId() && batch.baseSequence() < 0) {
      return ValidationResult.invalid(
          Code.INVALID_SEQUENCE,
          "base sequence " + batch.baseSequence() + " with producer id " + batch.producerId());
    }
    return ValidationResult.valid(batch);
  }

  /**
   * Reads every record of {@code batch}, inflating it if compressed, and reports the first
   * malformed one; compressed batches need this before a broker accepts them, since their CRC only
   * proves the compressed bytes arrived intact.
   */
  public static ValidationResult validateRecords(RecordBatch batch, int maxUncompressedBytes) {
    try (RecordIterator records = batch.records(maxUncompressedBytes)) {
      while (records.hasNext()) {
        records.skipNext();
      }
    } catch (InvalidRecordException e) {
      return ValidationResult.invalid(Code.INVALID_RECORDS, e.getMessage());
    }
    return ValidationResult.valid(batch);
  }
}
