package io.kelp.codec.record;

/**
 * Record bytes that cannot be read: a malformed batch or record, corrupt compressed data, or data
 * that inflates past the allowed size. The message says what is wrong and where (batch base offset,
 * record index, byte position). Maps to Kafka's INVALID_RECORD or CORRUPT_MESSAGE.
 */
public final class InvalidRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidRecordException(String message) {
    super(message);
  }

  public InvalidRecordException(String message, Throwable cause) {
    super(message, cause);
  }
}
