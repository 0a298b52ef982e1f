package io.kelp.codec.record;

import static io.kelp.codec.record.KafkaInterop.assertSameBatch;
import static io.kelp.codec.record.KafkaInterop.assertSameRecords;
import static io.kelp.codec.record.KafkaInterop.buildKafka;
import static io.kelp.codec.record.KafkaInterop.buildOurs;
import static io.kelp.codec.record.KafkaInterop.expected;
import static io.kelp.codec.record.KafkaInterop.readKafka;
import static io.kelp.codec.record.KafkaInterop.readOurs;
import static io.kelp.codec.record.KafkaInterop.samples;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.record.KafkaInterop.BatchView;
import io.kelp.codec.record.KafkaInterop.Sample;
import io.kelp.codec.record.KafkaInterop.Spec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.xerial.snappy.Snappy;

class RecordBatchTest {
  private final TrackingAllocator alloc = new TrackingAllocator();

  @AfterEach
  void noLeaks() {
    alloc.assertAllReleased();
  }

  /** Every codec with plain, idempotent, transactional and LogAppendTime settings. */
  static Stream<Arguments> specs() {
    List<Arguments> out = new ArrayList<>();
    for (io.kelp.codec.record.Compression c : io.kelp.codec.record.Compression.values()) {
      out.add(Arguments.of(Spec.plain(c)));
      out.add(Arguments.of(Spec.plain(c).withProducer(4242L, (short) 3, 17, false)));
      out.add(
          Arguments.of(
              Spec.plain(c)
                  .withBaseOffset(1_000_000L)
                  .withLeaderEpoch(9)
                  .withProducer(77L, (short) 1, Integer.MAX_VALUE - 5, true)));
      out.add(Arguments.of(Spec.plain(c).withBaseOffset(50).withLogAppendTime(1_800_000_000_000L)));
    }
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("specs")
  void kafkaReadsOurBatches(Spec spec) {
    List<Sample> samples = samples(new Random(1), spec.baseOffset(), true);
    ByteBuf ours = buildOurs(spec, samples, alloc);
    List<BatchView> kafka = readKafka(ours.nioBuffer());
    assertEquals(1, kafka.size());
    BatchView expected = expectedView(spec, samples);
    assertSameBatch(expected, kafka.get(0), false);
    assertSameBatch(kafka.get(0), readOurs(ours, alloc).get(0), true);
    ours.release();
  }

  @ParameterizedTest
  @MethodSource("specs")
  void weReadKafkaBatches(Spec spec) {
    List<Sample> samples = samples(new Random(2), spec.baseOffset(), true);
    ByteBuffer kafkaBytes = buildKafka(spec, samples);
    ByteBuf buf = Unpooled.wrappedBuffer(kafkaBytes.duplicate());
    List<BatchView> ours = readOurs(buf, alloc);
    assertEquals(1, ours.size());
    assertSameBatch(readKafka(kafkaBytes).get(0), ours.get(0), true);
    assertSameBatch(expectedView(spec, samples), ours.get(0), false);
  }

  @Test
  void uncompressedBatchesAreByteForByteKafkas() {
    for (Spec spec : specs().map(a -> (Spec) a.get()[0]).filter(s -> !isCompressed(s)).toList()) {
      List<Sample> samples = samples(new Random(3), spec.baseOffset(), false);
      ByteBuf ours = buildOurs(spec, samples, alloc);
      assertArrayEquals(
          KafkaInterop.array(buildKafka(spec, samples)),
          ByteBufUtil.getBytes(ours),
          spec.toString());
      ours.release();
    }
  }

  @Test
  void snappyRawBlockBatchAsLibrdkafkaSendsIt() throws Exception {
    List<Sample> samples = samples(new Random(4), 0, true);
    ByteBuf plain = buildOurs(Spec.plain(io.kelp.codec.record.Compression.NONE), samples, alloc);
    RecordBatch batch = RecordBatch.at(plain, 0);
    byte[] raw = Snappy.compress(ByteBufUtil.getBytes(batch.recordsSection()));
    ByteBuf snappy = alloc.buffer();
    snappy.writeBytes(plain, 0, RecordBatch.HEADER_SIZE).writeBytes(raw);
    RecordBatch view = RecordBatch.at(withFixedLength(snappy), 0);
    snappy.setShort(
        RecordBatch.ATTRIBUTES_OFFSET,
        view.attributes() | io.kelp.codec.record.Compression.SNAPPY.id());
    view.updateCrc();
    assertEquals(io.kelp.codec.record.Compression.SNAPPY, view.compression());

    List<BatchView> ours = readOurs(snappy, alloc);
    assertSameRecords(samples, ours.get(0).records());
    // snappy-java, under Kafka, also falls back to raw blocks.
    assertSameRecords(samples, readKafka(snappy.nioBuffer()).get(0).records());
    plain.release();
    snappy.release();
  }

  @ParameterizedTest
  @EnumSource(io.kelp.codec.record.Compression.class)
  void logAppendTimeRewriteKeepsKafkasCrcCheckPassing(io.kelp.codec.record.Compression codec) {
    List<Sample> samples = samples(new Random(5), 0, false);
    long appendTime = 1_900_000_000_123L;
    for (ByteBuf buf :
        List.of(
            buildOurs(Spec.plain(codec), samples, alloc),
            Unpooled.wrappedBuffer(buildKafka(Spec.plain(codec), samples)))) {
      RecordBatch batch = RecordBatch.at(buf, 0);
      batch.setLogAppendTime(appendTime);
      assertTrue(batch.isCrcValid());
      BatchView kafka = readKafka(buf.nioBuffer()).get(0);
      assertTrue(kafka.logAppendTime());
      assertEquals(appendTime, kafka.maxTimestamp());
      Spec appended = Spec.plain(codec).withLogAppendTime(appendTime);
      assertSameRecords(expected(appended, samples), kafka.records());
      assertSameBatch(kafka, readOurs(buf, alloc).get(0), true);
      buf.release();
    }
  }

  @ParameterizedTest
  @EnumSource(io.kelp.codec.record.Compression.class)
  void baseOffsetAndLeaderEpochRewriteNeedNoNewCrc(io.kelp.codec.record.Compression codec) {
    List<Sample> samples = samples(new Random(6), 0, false);
    ByteBuf buf = Unpooled.wrappedBuffer(buildKafka(Spec.plain(codec), samples));
    RecordBatch batch = RecordBatch.at(buf, 0);
    long crc = batch.crc();
    batch.setBaseOffset(123_456_789L);
    batch.setPartitionLeaderEpoch(42);
    assertEquals(crc, batch.crc());
    assertTrue(batch.isCrcValid());
    BatchView kafka = readKafka(buf.nioBuffer()).get(0);
    assertEquals(123_456_789L, kafka.baseOffset());
    assertEquals(42, kafka.leaderEpoch());
    assertEquals(123_456_789L + samples.size() - 1, kafka.lastOffset());
    assertEquals(123_456_789L + 3, kafka.records().get(3).offset());
    assertSameBatch(kafka, readOurs(buf, alloc).get(0), true);
    buf.release();
  }

  @Test
  void controlBatchesBothWays() {
    for (boolean commit : new boolean[] {true, false}) {
      ByteBuf ours =
          RecordBatchBuilder.transactionMarker(
              alloc, 500L, 9001L, (short) 4, 12, new TransactionMarker(commit, 33), 1234L);
      MutableRecordBatch kafkaView =
          MemoryRecords.readableRecords(ours.nioBuffer()).batches().iterator().next();
      kafkaView.ensureValid();
      assertTrue(kafkaView.isControlBatch());
      assertTrue(kafkaView.isTransactional());
      assertEquals(9001L, kafkaView.producerId());
      assertEquals(4, kafkaView.producerEpoch());
      assertEquals(12, kafkaView.partitionLeaderEpoch());
      org.apache.kafka.common.record.Record marker = kafkaView.iterator().next();
      assertEquals(500L, marker.offset());
      assertEquals(
          commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
          ControlRecordType.parse(marker.key()));
      assertEquals(33, EndTransactionMarker.deserialize(marker).coordinatorEpoch());

      EndTransactionMarker kafkaMarker =
          new EndTransactionMarker(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 33);
      ByteBuffer kafka =
          MemoryRecords.withEndTransactionMarker(500L, 1234L, 12, 9001L, (short) 4, kafkaMarker)
              .buffer();
      assertArrayEquals(KafkaInterop.array(kafka), ByteBufUtil.getBytes(ours));

      RecordBatch batch = RecordBatch.at(Unpooled.wrappedBuffer(kafka), 0);
      assertTrue(batch.isControl());
      assertTrue(batch.isTransactional());
      assertEquals(RecordBatch.NO_SEQUENCE, batch.baseSequence());
      try (RecordIterator records = batch.records(1 << 20, alloc)) {
        Record record = records.next();
        assertEquals(new TransactionMarker(commit, 33), TransactionMarker.read(record));
        assertFalse(records.hasNext());
      }
      ours.release();
    }
  }

  @Test
  void transactionMarkerRejectsOtherControlRecords() {
    ByteBuf buf =
        new RecordBatchBuilder()
            .control(true)
            .transactional(true)
            .append(1L, new byte[] {0, 0, 0, 2}, new byte[] {0, 0, 0, 0, 0, 0})
            .build(alloc);
    try (RecordIterator records = RecordBatch.at(buf, 0).records(1 << 20, alloc)) {
      Record leaderChange = records.next();
      InvalidRecordException e =
          assertThrows(InvalidRecordException.class, () -> TransactionMarker.read(leaderChange));
      assertTrue(e.getMessage().contains("not a transaction marker"), e.getMessage());
    }
    buf.release();
  }

  @ParameterizedTest
  @EnumSource(io.kelp.codec.record.Compression.class)
  void deleteHorizonAndOffsetGapsMatchKafka(io.kelp.codec.record.Compression codec)
      throws Exception {
    long horizon = KafkaInterop.BASE_TIME - 60_000;
    List<Sample> samples =
        List.of(
            new Sample(100, KafkaInterop.BASE_TIME, KafkaInterop.utf8("a"), null, List.of()),
            new Sample(
                103, KafkaInterop.BASE_TIME + 1, KafkaInterop.utf8("b"), new byte[3], List.of()),
            new Sample(
                110, KafkaInterop.BASE_TIME + 2, KafkaInterop.utf8("c"), new byte[1], List.of()));
    RecordBatchBuilder builder =
        new RecordBatchBuilder().baseOffset(100).compression(codec).deleteHorizonMs(horizon);
    for (Sample s : samples) {
      builder.appendWithOffset(s.offset(), s.timestamp(), s.key(), s.value(), s.headers());
    }
    ByteBuf ours = builder.build(alloc);

    MemoryRecordsBuilder kafkaBuilder =
        new MemoryRecordsBuilder(
            new ByteBufferOutputStream(256),
            org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2,
            Compression.of(org.apache.kafka.common.record.CompressionType.forId(codec.id()))
                .build(),
            TimestampType.CREATE_TIME,
            100L,
            org.apache.kafka.common.record.RecordBatch.NO_TIMESTAMP,
            -1L,
            (short) -1,
            -1,
            false,
            false,
            -1,
            1 << 20,
            horizon);
    for (Sample s : samples) {
      kafkaBuilder.appendWithOffset(s.offset(), s.timestamp(), s.key(), s.value());
    }
    ByteBuffer kafka = kafkaBuilder.build().buffer();
    if (codec == io.kelp.codec.record.Compression.NONE) {
      assertArrayEquals(KafkaInterop.array(kafka), ByteBufUtil.getBytes(ours));
    }
    for (ByteBuf buf : List.of(ours, Unpooled.wrappedBuffer(kafka))) {
      RecordBatch batch = RecordBatch.at(buf, 0);
      assertTrue(batch.hasDeleteHorizon());
      assertEquals(horizon, batch.deleteHorizonMs());
      assertEquals(110, batch.lastOffset());
      assertEquals(3, batch.recordCount());
      MutableRecordBatch kafkaView =
          MemoryRecords.readableRecords(buf.nioBuffer()).batches().iterator().next();
      kafkaView.ensureValid();
      assertEquals(horizon, kafkaView.deleteHorizonMs().getAsLong());
      BatchView view = readOurs(buf, alloc).get(0);
      assertSameBatch(readKafka(buf.nioBuffer()).get(0), view, true);
      assertSameRecords(samples, view.records());
    }
    ours.release();
  }

  @Test
  void emptyBatchReadsAsEmpty() {
    ByteBuf buf = new RecordBatchBuilder().baseOffset(10).producer(5L, (short) 0, 3).build(alloc);
    RecordBatch batch = RecordBatch.at(buf, 0);
    assertEquals(0, batch.recordCount());
    assertEquals(RecordBatch.HEADER_SIZE, batch.sizeInBytes());
    MutableRecordBatch kafka =
        MemoryRecords.readableRecords(buf.nioBuffer()).batches().iterator().next();
    kafka.ensureValid();
    assertEquals(0, kafka.countOrNull());
    assertEquals(10, kafka.baseOffset());
    try (RecordIterator it = batch.records(100, alloc)) {
      assertFalse(it.hasNext());
    }
    buf.release();
  }

  @Test
  void lastSequenceWrapsLikeKafkas() {
    for (int base : new int[] {0, 100, Integer.MAX_VALUE - 2, Integer.MAX_VALUE}) {
      Spec spec =
          Spec.plain(io.kelp.codec.record.Compression.NONE)
              .withProducer(1L, (short) 0, base, false);
      List<Sample> samples = samples(new Random(7), 0, false);
      ByteBuf ours = buildOurs(spec, samples, alloc);
      RecordBatch batch = RecordBatch.at(ours, 0);
      assertEquals(readKafka(ours.nioBuffer()).get(0).lastSequence(), batch.lastSequence());
      ours.release();
    }
  }

  @Test
  void viewAtAnOffsetInsideALargerBuffer() {
    List<Sample> samples = samples(new Random(8), 0, false);
    ByteBuf one = buildOurs(Spec.plain(io.kelp.codec.record.Compression.GZIP), samples, alloc);
    ByteBuf buf = alloc.buffer().writeZero(37).writeBytes(one, 0, one.readableBytes());
    RecordBatch batch = RecordBatch.at(buf, 37);
    assertTrue(batch.isCrcValid());
    assertEquals(one.readableBytes(), batch.sizeInBytes());
    assertEquals(37, buf.readableBytes() - batch.sizeInBytes());
    buf.readerIndex(37);
    assertSameRecords(samples, readOurs(buf, alloc).get(0).records());
    one.release();
    buf.release();
  }

  private static boolean isCompressed(Spec spec) {
    return spec.compression() != io.kelp.codec.record.Compression.NONE;
  }

  private static BatchView expectedView(Spec spec, List<Sample> samples) {
    long maxTimestamp =
        spec.logAppendTime() != RecordBatch.NO_TIMESTAMP
            ? spec.logAppendTime()
            : samples.stream().mapToLong(Sample::timestamp).max().orElseThrow();
    int lastSequence =
        spec.baseSequence() < 0
            ? -1
            : (int) (((long) spec.baseSequence() + samples.size() - 1) % (1L + Integer.MAX_VALUE));
    return new BatchView(
        spec.baseOffset(),
        spec.baseOffset() + samples.size() - 1,
        samples.size(),
        spec.compression().id(),
        spec.logAppendTime() != RecordBatch.NO_TIMESTAMP,
        spec.transactional(),
        false,
        spec.producerId(),
        spec.producerEpoch(),
        spec.baseSequence(),
        lastSequence,
        spec.leaderEpoch(),
        maxTimestamp,
        0,
        0,
        expected(spec, samples));
  }

  /** Sets batchLength from the bytes present. */
  static ByteBuf withFixedLength(ByteBuf buf) {
    buf.setInt(RecordBatch.BATCH_LENGTH_OFFSET, buf.writerIndex() - RecordBatch.LOG_OVERHEAD);
    return buf;
  }
}
