package io.kelp.codec.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;

/**
 * Builds batches with our builder and with kafka-clients, and reads them back with either side into
 * one neutral shape, so tests can compare the two implementations field by field.
 */
final class KafkaInterop {
  static final long BASE_TIME = 1_700_000_000_000L;

  private KafkaInterop() {}

  /** One record's content, independent of either implementation. */
  record Sample(
      long offset, long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {}

  /** Batch-level settings both builders understand. */
  record Spec(
      Compression compression,
      long baseOffset,
      long producerId,
      short producerEpoch,
      int baseSequence,
      boolean transactional,
      int leaderEpoch,
      long logAppendTime) {
    static Spec plain(Compression compression) {
      return new Spec(
          compression,
          0L,
          RecordBatch.NO_PRODUCER_ID,
          RecordBatch.NO_PRODUCER_EPOCH,
          RecordBatch.NO_SEQUENCE,
          false,
          RecordBatch.NO_PARTITION_LEADER_EPOCH,
          RecordBatch.NO_TIMESTAMP);
    }

    Spec withBaseOffset(long offset) {
      return new Spec(
          compression,
          offset,
          producerId,
          producerEpoch,
          baseSequence,
          transactional,
          leaderEpoch,
          logAppendTime);
    }

    Spec withProducer(long id, short epoch, int sequence, boolean txn) {
      return new Spec(
          compression, baseOffset, id, epoch, sequence, txn, leaderEpoch, logAppendTime);
    }

    Spec withLeaderEpoch(int epoch) {
      return new Spec(
          compression,
          baseOffset,
          producerId,
          producerEpoch,
          baseSequence,
          transactional,
          epoch,
          logAppendTime);
    }

    Spec withLogAppendTime(long time) {
      return new Spec(
          compression,
          baseOffset,
          producerId,
          producerEpoch,
          baseSequence,
          transactional,
          leaderEpoch,
          time);
    }
  }

  /** What a reader saw of one batch. */
  record BatchView(
      long baseOffset,
      long lastOffset,
      int count,
      int compressionId,
      boolean logAppendTime,
      boolean transactional,
      boolean control,
      long producerId,
      short producerEpoch,
      int baseSequence,
      int lastSequence,
      int leaderEpoch,
      long maxTimestamp,
      long crc,
      int size,
      List<Sample> records) {}

  /**
   * A varied set of records: null, empty and binary keys and values, headers with null values and
   * non-ASCII keys, a timestamp below the first (a negative delta), and optionally values large
   * enough to span several compression blocks, one of them incompressible.
   */
  static List<Sample> samples(Random random, long baseOffset, boolean large) {
    List<Sample> out = new ArrayList<>();
    long offset = baseOffset;
    out.add(
        new Sample(
            offset++,
            BASE_TIME,
            utf8("key-0"),
            utf8("hello, records"),
            List.of(new RecordHeader("trace", utf8("abc")), new RecordHeader("ünï-κλειδί", null))));
    out.add(new Sample(offset++, BASE_TIME + 5, null, utf8("no key"), List.of()));
    out.add(new Sample(offset++, BASE_TIME - 1_000, utf8("tombstone"), null, List.of()));
    out.add(new Sample(offset++, BASE_TIME + 77, new byte[0], new byte[0], List.of()));
    out.add(
        new Sample(
            offset++,
            BASE_TIME + 1_000_000,
            bytes(random, 40),
            bytes(random, 300),
            List.of(
                new RecordHeader("", new byte[0]),
                new RecordHeader("a", bytes(random, 20)),
                new RecordHeader("b", null))));
    if (large) {
      byte[] text = new byte[200_000];
      for (int i = 0; i < text.length; i++) {
        text[i] = (byte) ('a' + (i * 7 + i / 13) % 26);
      }
      out.add(new Sample(offset++, BASE_TIME + 9, utf8("big"), text, List.of()));
      out.add(
          new Sample(offset++, BASE_TIME + 10, utf8("noise"), bytes(random, 90_000), List.of()));
    }
    for (int i = 0; i < 20; i++) {
      out.add(
          new Sample(
              offset++,
              BASE_TIME + random.nextInt(10_000),
              utf8("k" + i),
              utf8("value number " + i),
              i % 3 == 0 ? List.of(new RecordHeader("i", utf8(Integer.toString(i)))) : List.of()));
    }
    return out;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  static ByteBuf buildOurs(Spec spec, List<Sample> samples, ByteBufAllocator alloc) {
    RecordBatchBuilder builder =
        new RecordBatchBuilder()
            .baseOffset(spec.baseOffset())
            .compression(spec.compression())
            .producer(spec.producerId(), spec.producerEpoch(), spec.baseSequence())
            .transactional(spec.transactional())
            .partitionLeaderEpoch(spec.leaderEpoch());
    if (spec.logAppendTime() != RecordBatch.NO_TIMESTAMP) {
      builder.logAppendTime(spec.logAppendTime());
    }
    for (Sample s : samples) {
      builder.appendWithOffset(s.offset(), s.timestamp(), s.key(), s.value(), s.headers());
    }
    return builder.build(alloc);
  }

  static ByteBuffer buildKafka(Spec spec, List<Sample> samples) {
    boolean logAppend = spec.logAppendTime() != RecordBatch.NO_TIMESTAMP;
    MemoryRecordsBuilder builder =
        MemoryRecords.builder(
            ByteBuffer.allocate(1024),
            org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2,
            org.apache.kafka.common.compress.Compression.of(
                    CompressionType.forId(spec.compression().id()))
                .build(),
            logAppend
                ? org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME
                : org.apache.kafka.common.record.TimestampType.CREATE_TIME,
            spec.baseOffset(),
            logAppend
                ? spec.logAppendTime()
                : org.apache.kafka.common.record.RecordBatch.NO_TIMESTAMP,
            spec.producerId(),
            spec.producerEpoch(),
            spec.baseSequence(),
            spec.transactional(),
            false,
            spec.leaderEpoch());
    for (Sample s : samples) {
      Header[] headers =
          s.headers().stream()
              .map(
                  h ->
                      new org.apache.kafka.common.header.internals.RecordHeader(h.key(), h.value()))
              .toArray(Header[]::new);
      builder.appendWithOffset(s.offset(), s.timestamp(), s.key(), s.value(), headers);
    }
    return builder.build().buffer();
  }

  /** Reads with kafka-clients, requiring every batch to pass Kafka's own validity check. */
  static List<BatchView> readKafka(ByteBuffer buffer) {
    List<BatchView> out = new ArrayList<>();
    for (MutableRecordBatch batch : MemoryRecords.readableRecords(buffer.duplicate()).batches()) {
      batch.ensureValid();
      List<Sample> records = new ArrayList<>();
      for (org.apache.kafka.common.record.Record r : batch) {
        List<RecordHeader> headers = new ArrayList<>();
        for (Header h : r.headers()) {
          headers.add(new RecordHeader(h.key(), h.value()));
        }
        records.add(
            new Sample(r.offset(), r.timestamp(), array(r.key()), array(r.value()), headers));
      }
      out.add(
          new BatchView(
              batch.baseOffset(),
              batch.lastOffset(),
              batch.countOrNull(),
              batch.compressionType().id,
              batch.timestampType() == org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME,
              batch.isTransactional(),
              batch.isControlBatch(),
              batch.producerId(),
              batch.producerEpoch(),
              batch.baseSequence(),
              batch.lastSequence(),
              batch.partitionLeaderEpoch(),
              batch.maxTimestamp(),
              batch.checksum(),
              batch.sizeInBytes(),
              records));
    }
    return out;
  }

  /** Reads with our walker and iterator, requiring whole batches with valid CRCs. */
  static List<BatchView> readOurs(ByteBuf buf, ByteBufAllocator alloc) {
    List<BatchView> out = new ArrayList<>();
    RecordBatches.Walker walker = RecordBatches.walk(buf);
    while (walker.hasNext()) {
      RecordBatch batch = walker.next();
      assertTrue(batch.isCrcValid(), "crc of " + batch);
      List<Sample> records = new ArrayList<>();
      try (RecordIterator it = batch.records(64 << 20, alloc)) {
        while (it.hasNext()) {
          Record r = it.next();
          records.add(
              new Sample(r.offset(), r.timestamp(), r.keyBytes(), r.valueBytes(), r.headers()));
        }
      }
      out.add(
          new BatchView(
              batch.baseOffset(),
              batch.lastOffset(),
              batch.recordCount(),
              batch.compressionId(),
              batch.timestampType() == TimestampType.LOG_APPEND_TIME,
              batch.isTransactional(),
              batch.isControl(),
              batch.producerId(),
              batch.producerEpoch(),
              batch.baseSequence(),
              batch.lastSequence(),
              batch.partitionLeaderEpoch(),
              batch.maxTimestamp(),
              batch.crc(),
              batch.sizeInBytes(),
              records));
    }
    assertEquals(RecordBatches.End.COMPLETE, walker.end(), walker.problem());
    return out;
  }

  /** Field-by-field equality, records included; {@code sameBytes} also compares size and CRC. */
  static void assertSameBatch(BatchView expected, BatchView actual, boolean sameBytes) {
    assertEquals(expected.baseOffset(), actual.baseOffset(), "baseOffset");
    assertEquals(expected.lastOffset(), actual.lastOffset(), "lastOffset");
    assertEquals(expected.count(), actual.count(), "count");
    assertEquals(expected.compressionId(), actual.compressionId(), "compression");
    assertEquals(expected.logAppendTime(), actual.logAppendTime(), "timestamp type");
    assertEquals(expected.transactional(), actual.transactional(), "transactional");
    assertEquals(expected.control(), actual.control(), "control");
    assertEquals(expected.producerId(), actual.producerId(), "producerId");
    assertEquals(expected.producerEpoch(), actual.producerEpoch(), "producerEpoch");
    assertEquals(expected.baseSequence(), actual.baseSequence(), "baseSequence");
    assertEquals(expected.lastSequence(), actual.lastSequence(), "lastSequence");
    assertEquals(expected.leaderEpoch(), actual.leaderEpoch(), "leaderEpoch");
    assertEquals(expected.maxTimestamp(), actual.maxTimestamp(), "maxTimestamp");
    if (sameBytes) {
      assertEquals(expected.size(), actual.size(), "size");
      assertEquals(expected.crc(), actual.crc(), "crc");
    }
    assertSameRecords(expected.records(), actual.records());
  }

  static void assertSameRecords(List<Sample> expected, List<Sample> actual) {
    assertEquals(expected.size(), actual.size(), "record count");
    for (int i = 0; i < expected.size(); i++) {
      Sample e = expected.get(i);
      Sample a = actual.get(i);
      String at = "record " + i;
      assertEquals(e.offset(), a.offset(), at + " offset");
      assertEquals(e.timestamp(), a.timestamp(), at + " timestamp");
      assertArrayEquals(e.key(), a.key(), at + " key");
      assertArrayEquals(e.value(), a.value(), at + " value");
      assertEquals(e.headers(), a.headers(), at + " headers");
    }
  }

  /** The samples as a reader should report them, given the batch's timestamp type. */
  static List<Sample> expected(Spec spec, List<Sample> samples) {
    if (spec.logAppendTime() == RecordBatch.NO_TIMESTAMP) {
      return samples;
    }
    return samples.stream()
        .map(s -> new Sample(s.offset(), spec.logAppendTime(), s.key(), s.value(), s.headers()))
        .toList();
  }

  static byte[] array(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  static String describe(byte[] b) {
    return b == null ? "null" : Arrays.toString(b);
  }
}
