package io.kelp.codec.record;

/** Attribute bit 3 of a record batch: who set the timestamps. */
public enum TimestampType {
  /** The producer's timestamps, per record. */
  CREATE_TIME,
  /** The broker's append time, held once in the batch's maxTimestamp for every record. */
  LOG_APPEND_TIME
}
