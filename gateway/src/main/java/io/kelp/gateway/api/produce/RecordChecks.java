package io.kelp.gateway.api.produce;

import io.kelp.codec.record.InvalidRecordException;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordIterator;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.config.TopicConfig;

/**
 * The checks a Kafka leader makes on the records inside a produced batch, after the codec has
 * checked its header and CRC: every record readable (compressed batches inflated, up to a size
 * cap), offset deltas 0, 1, 2..., keys present on compacted topics, and CreateTime timestamps
 * inside the topic's message.timestamp.before/after.max.ms window.
 */
final class RecordChecks {
  private RecordChecks() {}

  /** A failed check: the Kafka error, the record's index in the batch, and why. */
  record Failure(short errorCode, int recordIndex, String message) {}

  /** The first failed check of {@code batch}, or null when it passes. */
  static Failure check(
      RecordBatch batch, TopicConfig config, long nowMs, int maxUncompressedBytes, String where) {
    boolean checkTimes = !config.logAppendTime();
    long earliest = nowMs - config.timestampBeforeMaxMs();
    long latest =
        config.timestampAfterMaxMs() > Long.MAX_VALUE - nowMs
            ? Long.MAX_VALUE
            : nowMs + config.timestampAfterMaxMs();
    int index = 0;
    try (RecordIterator records = batch.records(maxUncompressedBytes)) {
      while (records.hasNext()) {
        records.skipNext();
        if (records.offsetDelta() != index) {
          return new Failure(
              Errors.INVALID_RECORD,
              index,
              "Record " + index + " has offset delta " + records.offsetDelta() + " in " + where);
        }
        if (config.compact() && !records.hasKey()) {
          return new Failure(
              Errors.INVALID_RECORD,
              index,
              "Compacted topic cannot accept message without key in topic partition " + where);
        }
        if (checkTimes && (records.timestamp() < earliest || records.timestamp() > latest)) {
          return new Failure(
              Errors.INVALID_TIMESTAMP,
              index,
              "Timestamp "
                  + records.timestamp()
                  + " of message with offset "
                  + index
                  + " is out of range. The timestamp should be within ["
                  + earliest
                  + ", "
                  + latest
                  + "]");
        }
        index++;
      }
    } catch (InvalidRecordException e) {
      return new Failure(Errors.INVALID_RECORD, index, e.getMessage() + " in " + where);
    }
    return null;
  }
}
