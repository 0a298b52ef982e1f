package io.kelp.engine.producer;

/**
 * What the producer state remembers of one of a producer's recent batches, to recognise a retried
 * batch as a duplicate and answer with its original offsets.
 *
 * @param firstSequence the sequence of the batch's first record
 * @param lastSequence the sequence of its last record
 * @param firstOffset the offset assigned to its first record
 * @param lastOffset the offset assigned to its last record
 * @param timestamp the batch's max timestamp (the append time under LogAppendTime)
 */
public record BatchMetadata(
    int firstSequence, int lastSequence, long firstOffset, long lastOffset, long timestamp) {}
