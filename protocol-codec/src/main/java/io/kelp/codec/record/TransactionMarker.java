package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;

/**
 * The single record of a transaction marker control batch.
 *
 * <pre>
 * key:   version int16 (0) | type int16 (0 = ABORT, 1 = COMMIT)
 * value: version int16 (0) | coordinatorEpoch int32
 * </pre>
 *
 * Readers accept versions above 0 and read the fields version 0 defines, as Kafka does.
 */
public record TransactionMarker(boolean commit, int coordinatorEpoch) {
  static final short CURRENT_VERSION = 0;
  static final short ABORT = 0;
  static final short COMMIT = 1;
  static final int KEY_SIZE = 4;
  static final int VALUE_SIZE = 6;

  /** The control record key. */
  byte[] key() {
    short type = commit ? COMMIT : ABORT;
    return new byte[] {0, (byte) CURRENT_VERSION, (byte) (type >> 8), (byte) type};
  }

  /** The control record value. */
  byte[] value() {
    int e = coordinatorEpoch;
    return new byte[] {
      0, (byte) CURRENT_VERSION, (byte) (e >>> 24), (byte) (e >>> 16), (byte) (e >>> 8), (byte) e
    };
  }

  /** Reads the marker from a control batch's record; throws if it is not a transaction marker. */
  public static TransactionMarker read(Record record) {
    ByteBuf key = record.key();
    ByteBuf value = record.value();
    if (key == null || key.readableBytes() < KEY_SIZE) {
      throw new InvalidRecordException(
          "control record at offset " + record.offset() + ": key too short for a control type");
    }
    short keyVersion = key.getShort(key.readerIndex());
    short type = key.getShort(key.readerIndex() + 2);
    if (keyVersion < 0 || (type != ABORT && type != COMMIT)) {
      throw new InvalidRecordException(
          String.format(
              "control record at offset %d: not a transaction marker (version %d, type %d)",
              record.offset(), keyVersion, type));
    }
    if (value == null
        || value.readableBytes() < VALUE_SIZE
        || value.getShort(value.readerIndex()) < 0) {
      throw new InvalidRecordException(
          "transaction marker at offset " + record.offset() + ": malformed value");
    }
    return new TransactionMarker(type == COMMIT, value.getInt(value.readerIndex() + 2));
  }
}
