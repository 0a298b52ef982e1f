package io.kelp.engine.log;

/** The log start offset after DeleteRecords, or an error when the offset was out of range. */
public record DeleteRecordsResult(boolean ok, long logStartOffset, String message) {}
