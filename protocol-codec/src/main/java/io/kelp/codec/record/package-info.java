/**
 * Kafka record batches, magic 2: views over batch bytes ({@link io.kelp.codec.record.RecordBatch}),
 * walking and produce-time validation ({@link io.kelp.codec.record.RecordBatches}), reading records
 * ({@link io.kelp.codec.record.RecordIterator}), the codecs ({@link
 * io.kelp.codec.record.Compression}) and writing batches ({@link
 * io.kelp.codec.record.RecordBatchBuilder}).
 *
 * <p>Input from the wire is never trusted: malformed bytes end in {@link
 * io.kelp.codec.record.InvalidRecordException} or a {@link io.kelp.codec.record.ValidationResult},
 * lengths are checked against the bytes left before anything is allocated, and decompression stops
 * at a caller-given size.
 */
package io.kelp.codec.record;
