/**
 * The on-store layout of one partition log. A partition directory holds:
 *
 * <pre>
 * owner.epoch                        the store's fencing record (see ObjectStore#claim)
 * partition.meta                     log start offset and leader-epoch history, JSON
 *                                    (io.kelp.engine.log.PartitionMeta)
 * 00000000000000000000.log           a segment: record batches (Kafka v2, magic 2) laid end to
 *                                    end exactly as produced, with base offsets and partition
 *                                    leader epochs assigned; nothing else, no framing of our own
 * 00000000000000000000.index         its sidecar (SegmentSidecar): valid length, offsets, largest
 *                                    timestamp, sparse offset and time indexes, producer state
 * 00000000000000004096.log           the next segment, named by its base offset in 20 digits
 * 00000000000000004096.c2.log        a segment rewritten by compaction (generation 2), with its
 * 00000000000000004096.c2.index      sidecar; it replaces the segments whose offsets it covers
 * </pre>
 *
 * Objects are only ever appended to or written whole, never changed in place, so the same layout
 * works on a local disk and on a SeaweedFS filer. A segment's bytes past the valid length its
 * sealed sidecar records (a torn or failed write) are never read; the sealed sidecar is the
 * authority, and indexes are rebuilt by scanning when a sidecar is missing or damaged. Reading a
 * segment needs nothing but a Kafka record batch parser: each batch is baseOffset (int64),
 * batchLength (int32), then batchLength bytes.
 */
package io.kelp.engine.segment;
