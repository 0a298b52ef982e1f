package io.kelp.codec.record;

import static io.kelp.codec.record.KafkaInterop.buildKafka;
import static io.kelp.codec.record.KafkaInterop.buildOurs;
import static io.kelp.codec.record.KafkaInterop.samples;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.record.KafkaInterop.Spec;
import io.kelp.codec.record.RecordBatches.End;
import io.kelp.codec.record.ValidationResult.Code;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnsupportedCompressionTypeException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RecordBatchesTest {
  private static final int MAX_BATCH = 1 << 20;

  private final TrackingAllocator alloc = new TrackingAllocator();

  @AfterEach
  void noLeaks() {
    alloc.assertAllReleased();
  }

  private ByteBuf producerBatch(Compression codec) {
    Spec spec = Spec.plain(codec).withProducer(1000L, (short) 2, 0, false);
    return buildOurs(spec, samples(new Random(11), 0, false), alloc);
  }

  @Test
  void walksConsecutiveBatchesAndReportsATrailingPartialOne() {
    ByteBuf all = alloc.buffer();
    List<Integer> sizes = new ArrayList<>();
    long offset = 0;
    for (Compression codec : Compression.values()) {
      ByteBuf one =
          buildOurs(
              Spec.plain(codec).withBaseOffset(offset),
              samples(new Random(12), offset, false),
              alloc);
      sizes.add(one.readableBytes());
      offset += RecordBatch.at(one, 0).recordCount();
      all.writeBytes(one);
      one.release();
    }
    RecordBatches.Walker walker = RecordBatches.walk(all);
    int n = 0;
    long expectedBase = 0;
    while (walker.hasNext()) {
      RecordBatch batch = walker.next();
      assertEquals(sizes.get(n++), batch.sizeInBytes());
      assertEquals(expectedBase, batch.baseOffset());
      expectedBase = batch.nextOffset();
    }
    assertEquals(Compression.values().length, n);
    assertEquals(End.COMPLETE, walker.end());
    assertNull(walker.problem());

    int lastStart = all.writerIndex() - sizes.get(sizes.size() - 1);
    for (int cut = lastStart + 1; cut < all.writerIndex(); cut++) {
      RecordBatches.Walker w = RecordBatches.walk(all.slice(0, cut));
      int count = 0;
      while (w.hasNext()) {
        w.next();
        count++;
      }
      assertEquals(Compression.values().length - 1, count, "cut at " + cut);
      assertEquals(End.PARTIAL_BATCH, w.end(), "cut at " + cut);
      assertEquals(cut - lastStart, w.trailingBytes());
    }
    all.release();
  }

  @Test
  void walkStopsAtABadLengthOrMagic() {
    ByteBuf buf = producerBatch(Compression.NONE);
    int size = buf.readableBytes();
    ByteBuf two = alloc.buffer().writeBytes(buf, 0, size).writeBytes(buf, 0, size);
    two.setInt(size + RecordBatch.BATCH_LENGTH_OFFSET, 48);
    RecordBatches.Walker walker = RecordBatches.walk(two);
    assertTrue(walker.hasNext());
    walker.next();
    assertFalse(walker.hasNext());
    assertEquals(End.BAD_LENGTH, walker.end());
    assertTrue(walker.problem().contains("batchLength 48"), walker.problem());

    two.setInt(size + RecordBatch.BATCH_LENGTH_OFFSET, size - RecordBatch.LOG_OVERHEAD);
    two.setByte(size + RecordBatch.MAGIC_OFFSET, 1);
    walker = RecordBatches.walk(two);
    walker.next();
    assertFalse(walker.hasNext());
    assertEquals(End.BAD_MAGIC, walker.end());
    assertEquals(size, walker.position());
    buf.release();
    two.release();
  }

  @Test
  void acceptsWhatProducersSend() {
    for (Compression codec : Compression.values()) {
      ByteBuf ours = producerBatch(codec);
      ValidationResult result = RecordBatches.validateForProduce(ours, 9, MAX_BATCH);
      assertTrue(result.isValid(), result.toString());
      assertEquals(0, result.batch().offset());
      assertTrue(RecordBatches.validateRecords(result.batch(), MAX_BATCH).isValid());
      ours.release();

      Spec txn = Spec.plain(codec).withProducer(5L, (short) 0, 0, true);
      ByteBuf kafka = Unpooled.wrappedBuffer(buildKafka(txn, samples(new Random(13), 0, true)));
      result = RecordBatches.validateForProduce(kafka, 11, MAX_BATCH);
      assertTrue(result.isValid(), result.toString());
      assertTrue(RecordBatches.validateRecords(result.batch(), MAX_BATCH).isValid());
    }
  }

  @Test
  void rejectsWhatAKafkaLeaderRejects() {
    assertCode(Code.NO_BATCHES, Unpooled.EMPTY_BUFFER, 9);
    assertCode(
        Code.MULTIPLE_BATCHES, b -> b.writeBytes(b, 0, b.writerIndex()), Compression.NONE, 9);
    assertCode(Code.CORRUPT_LENGTH, b -> b.writeZero(3), Compression.NONE, 9);
    assertCode(Code.CORRUPT_LENGTH, b -> b.writerIndex(b.writerIndex() - 1), Compression.NONE, 9);
    assertCode(Code.CORRUPT_LENGTH, b -> b.setInt(8, 10), Compression.NONE, 9);
    assertCode(Code.UNSUPPORTED_MAGIC, b -> b.setByte(16, 1), Compression.NONE, 9);
    assertCode(Code.CRC_MISMATCH, b -> b.setByte(b.writerIndex() - 1, 0x55), Compression.GZIP, 9);
    assertCode(Code.UNSUPPORTED_COMPRESSION, b -> {}, Compression.ZSTD, 6);
    assertCode(Code.VALID, b -> {}, Compression.ZSTD, 7);
    assertCode(Code.UNKNOWN_COMPRESSION, b -> setAttributes(b, 5), Compression.NONE, 9);
    assertCode(Code.INVALID_BASE_OFFSET, b -> b.setLong(0, 7), Compression.NONE, 9);
    assertCode(Code.INVALID_RECORD_COUNT, b -> setIntFixCrc(b, 57, 24), Compression.NONE, 9);
    assertCode(Code.INVALID_RECORD_COUNT, b -> setIntFixCrc(b, 57, 0), Compression.NONE, 9);
    assertCode(Code.INVALID_RECORD_COUNT, b -> setIntFixCrc(b, 23, -1), Compression.NONE, 9);
    assertCode(Code.CONTROL_BATCH, b -> setAttributes(b, 0x20), Compression.NONE, 9);
    assertCode(Code.INVALID_SEQUENCE, b -> setIntFixCrc(b, 53, -1), Compression.NONE, 9);
    assertCode(Code.BATCH_TOO_LARGE, b -> {}, Compression.NONE, 9, 100);
  }

  @Test
  void validateRecordsReportsMalformedRecords() {
    ByteBuf buf = producerBatch(Compression.NONE);
    // Record 0's key length, just after its length, attributes, timestamp and offset deltas.
    buf.setByte(RecordBatch.RECORDS_OFFSET + 4, 0x7e);
    RecordBatch batch = RecordBatch.at(buf, 0);
    batch.updateCrc();
    assertTrue(RecordBatches.validateForProduce(buf, 9, MAX_BATCH).isValid());
    ValidationResult result = RecordBatches.validateRecords(batch, MAX_BATCH);
    assertEquals(Code.INVALID_RECORDS, result.code());
    assertTrue(result.message().contains("key length 63"), result.message());
    buf.release();
  }

  @Test
  void errorCodesAreKafkas() {
    assertEquals(Errors.NONE.code(), Code.VALID.kafkaErrorCode());
    assertEquals(
        Errors.forException(new CorruptRecordException()).code(),
        Code.CRC_MISMATCH.kafkaErrorCode());
    assertEquals(Errors.CORRUPT_MESSAGE.code(), Code.CORRUPT_LENGTH.kafkaErrorCode());
    assertEquals(
        Errors.forException(new RecordTooLargeException()).code(),
        Code.BATCH_TOO_LARGE.kafkaErrorCode());
    assertEquals(
        Errors.forException(new UnsupportedCompressionTypeException("")).code(),
        Code.UNSUPPORTED_COMPRESSION.kafkaErrorCode());
    short invalidRecord =
        Errors.forException(new org.apache.kafka.common.InvalidRecordException("")).code();
    for (Code code :
        List.of(
            Code.NO_BATCHES,
            Code.MULTIPLE_BATCHES,
            Code.UNSUPPORTED_MAGIC,
            Code.UNKNOWN_COMPRESSION,
            Code.INVALID_BASE_OFFSET,
            Code.INVALID_RECORD_COUNT,
            Code.CONTROL_BATCH,
            Code.INVALID_SEQUENCE,
            Code.INVALID_RECORDS)) {
      assertEquals(invalidRecord, code.kafkaErrorCode(), code.name());
    }
  }

  private void assertCode(Code expected, ByteBuf buf, int version) {
    ValidationResult result = RecordBatches.validateForProduce(buf, version, MAX_BATCH);
    assertSame(expected, result.code(), result.toString());
  }

  private void assertCode(Code expected, Consumer<ByteBuf> damage, Compression codec, int version) {
    assertCode(expected, damage, codec, version, MAX_BATCH);
  }

  private void assertCode(
      Code expected, Consumer<ByteBuf> damage, Compression codec, int version, int maxBatch) {
    ByteBuf buf = producerBatch(codec);
    damage.accept(buf);
    ValidationResult result = RecordBatches.validateForProduce(buf, version, maxBatch);
    assertSame(expected, result.code(), result.toString());
    if (expected != Code.VALID) {
      assertNull(result.batch());
      assertTrue(result.message() != null && !result.message().isEmpty());
    }
    buf.release();
  }

  private static void setAttributes(ByteBuf buf, int bits) {
    buf.setShort(RecordBatch.ATTRIBUTES_OFFSET, buf.getShort(RecordBatch.ATTRIBUTES_OFFSET) | bits);
    RecordBatch.at(buf, 0).updateCrc();
  }

  private static void setIntFixCrc(ByteBuf buf, int at, int value) {
    buf.setInt(at, value);
    RecordBatch.at(buf, 0).updateCrc();
  }
}
