package io.kelp.codec.record;

/**
 * The outcome of checking records a client sent: a code that maps to a Kafka error code, a message
 * for the response's error message and the log, and on success the validated batch.
 */
public final class ValidationResult {
  // Kafka error codes the outcomes map to.
  private static final short NONE = 0;
  private static final short CORRUPT_MESSAGE = 2;
  private static final short MESSAGE_TOO_LARGE = 10;
  private static final short UNSUPPORTED_COMPRESSION_TYPE = 76;
  private static final short INVALID_RECORD = 87;

  /** What was found, with the Kafka error code a produce response reports for it. */
  public enum Code {
    VALID(NONE),
    /** No batch at all. */
    NO_BATCHES(INVALID_RECORD),
    /** Produce v3+ allows exactly one batch per partition. */
    MULTIPLE_BATCHES(INVALID_RECORD),
    UNSUPPORTED_MAGIC(INVALID_RECORD),
    /** A batchLength that is too small or does not match the bytes present. */
    CORRUPT_LENGTH(CORRUPT_MESSAGE),
    BATCH_TOO_LARGE(MESSAGE_TOO_LARGE),
    CRC_MISMATCH(CORRUPT_MESSAGE),
    /** Attribute bits 0-2 hold 5, 6 or 7. */
    UNKNOWN_COMPRESSION(INVALID_RECORD),
    /** zstd before Produce v7. */
    UNSUPPORTED_COMPRESSION(UNSUPPORTED_COMPRESSION_TYPE),
    /** A client must send baseOffset 0. */
    INVALID_BASE_OFFSET(INVALID_RECORD),
    /** recordCount not positive, or not lastOffsetDelta + 1. */
    INVALID_RECORD_COUNT(INVALID_RECORD),
    /** Only the broker writes control batches. */
    CONTROL_BATCH(INVALID_RECORD),
    /** A producer id with a negative base sequence. */
    INVALID_SEQUENCE(INVALID_RECORD),
    /** A record that cannot be read, or compressed data that cannot be inflated. */
    INVALID_RECORDS(INVALID_RECORD);

    private final short kafkaErrorCode;

    Code(short kafkaErrorCode) {
      this.kafkaErrorCode = kafkaErrorCode;
    }

    public short kafkaErrorCode() {
      return kafkaErrorCode;
    }
  }

  private final Code code;
  private final String message;
  private final RecordBatch batch;

  private ValidationResult(Code code, String message, RecordBatch batch) {
    this.code = code;
    this.message = message;
    this.batch = batch;
  }

  static ValidationResult valid(RecordBatch batch) {
    return new ValidationResult(Code.VALID, null, batch);
  }

  static ValidationResult invalid(Code code, String message) {
    return new ValidationResult(code, message, null);
  }

  public boolean isValid() {
    return code == Code.VALID;
  }

  public Code code() {
    return code;
  }

  /** What is wrong, or null when valid. */
  public String message() {
    return message;
  }

  /** The validated batch, or null when invalid. */
  public RecordBatch batch() {
    return batch;
  }

  public short kafkaErrorCode() {
    return code.kafkaErrorCode();
  }

  @Override
  public String toString() {
    return isValid() ? "VALID " + batch : code + ": " + message;
  }
}
