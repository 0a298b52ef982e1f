package io.kelp.codec.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kelp.codec.record.KafkaInterop.Spec;
import io.kelp.codec.record.RecordBatches.End;
import io.kelp.codec.record.ValidationResult.Code;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed batches and records: every failure must be an {@link InvalidRecordException} (or a
 * validation result), never another exception type, an out-of-memory error or a hang.
 */
@Timeout(120)
class RecordHostileInputTest {
  private static final int CAP = 1 << 20;

  private final TrackingAllocator alloc = new TrackingAllocator();

  @AfterEach
  void noLeaks() {
    alloc.assertAllReleased();
  }

  // ---- hand-made records: v = varint, vl = varlong, rec = length-prefixed record ----

  private static byte[] v(int value) {
    ByteBuf b = Unpooled.buffer();
    Varint.writeVarint(b, value);
    return ByteBufUtil.getBytes(b);
  }

  private static byte[] vl(long value) {
    ByteBuf b = Unpooled.buffer();
    Varint.writeVarlong(b, value);
    return ByteBufUtil.getBytes(b);
  }

  private static byte[] raw(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  private static byte[] zeros(int n) {
    return new byte[n];
  }

  private static byte[] cat(byte[]... parts) {
    ByteBuf b = Unpooled.buffer();
    for (byte[] part : parts) {
      b.writeBytes(part);
    }
    return ByteBufUtil.getBytes(b);
  }

  private static byte[] rec(byte[]... body) {
    byte[] bytes = cat(body);
    return cat(v(bytes.length), bytes);
  }

  /** attributes, timestamp delta and offset delta, all 0. */
  private static final byte[] PREFIX = cat(raw(0), vl(0), v(0));

  /** No key, no value. */
  private static final byte[] EMPTY_KV = cat(PREFIX, v(-1), v(-1));

  private static final byte[] GOOD =
      rec(PREFIX, v(3), raw('k', 'e', 'y'), v(100), zeros(100), v(0));

  static Stream<Arguments> malformedRecords() {
    byte[] sixByteVarint = raw(0x80, 0x80, 0x80, 0x80, 0x80, 1);
    byte[] elevenByteVarlong = raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1);
    Object[][] cases = {
      {"negative record length", 1, cat(v(-3), zeros(10))},
      {"record length 2147483647 exceeds", 1, cat(v(Integer.MAX_VALUE), zeros(20))},
      {"empty record", 1, cat(v(0), zeros(7))},
      {"key length -2", 1, rec(PREFIX, v(-2), zeros(10))},
      {"key length 1000000", 1, rec(PREFIX, v(1_000_000), zeros(10))},
      {"value length 2147483647", 1, rec(PREFIX, v(-1), v(Integer.MAX_VALUE), zeros(10))},
      {"negative header count -5", 1, rec(EMPTY_KV, v(-5))},
      {"header count 1000000 does not fit", 1, rec(EMPTY_KV, v(1_000_000), zeros(10))},
      {"header 0 key length -1", 1, rec(EMPTY_KV, v(1), v(-1), v(-1))},
      {"header 0 key length 99999", 1, rec(EMPTY_KV, v(1), v(99_999), zeros(4))},
      {"header 0 value length -2", 1, rec(EMPTY_KV, v(1), v(1), raw('h'), v(-2))},
      {
        "header 0 value length 2147483647",
        1,
        rec(EMPTY_KV, v(1), v(1), raw('h'), v(Integer.MAX_VALUE), zeros(3))
      },
      {"header 1 key length", 1, rec(EMPTY_KV, v(2), v(1), raw('h'), v(-1), v(50))},
      {"offset delta: varint longer than 5 bytes", 1, rec(raw(0), vl(0), sixByteVarint, zeros(4))},
      {"record length: varint longer than 5 bytes", 1, cat(sixByteVarint, zeros(8))},
      {
        "timestamp delta: varlong longer than 10 bytes", 1, rec(raw(0), elevenByteVarlong, zeros(6))
      },
      {"key length: varint runs past the end", 1, cat(rec(PREFIX, raw(0x80)), zeros(5))},
      {"fields take", 1, rec(Arrays.copyOfRange(GOOD, 2, GOOD.length), zeros(2))},
      {"record 1", 2, GOOD},
      {"bytes left after the last of 1 records", 1, cat(GOOD, GOOD)},
      {"invalid record count -1", -1, GOOD},
      {"record count 2147483647 does not fit", Integer.MAX_VALUE, GOOD},
      {"record count 0 does not fit", 0, GOOD},
    };
    return Stream.of(Compression.values())
        .flatMap(c -> Stream.of(cases).map(k -> Arguments.of(c, k[0], k[1], k[2])));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("malformedRecords")
  void malformedRecordsFailWithAClearMessage(
      Compression codec, String expected, int count, byte[] section) {
    ByteBuf buf = rawBatch(codec, count, section);
    RecordBatch batch = RecordBatch.at(buf, 0);
    assertTrue(batch.isCrcValid());
    InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> readAll(batch));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
    assertTrue(e.getMessage().startsWith("record batch at base offset 0"), e.getMessage());
    assertSame(Code.INVALID_RECORDS, RecordBatches.validateRecords(batch, CAP).code());
    buf.release();
  }

  /** A batch around a hand-made records section, compressed with the codec, with a valid CRC. */
  private ByteBuf rawBatch(Compression codec, int count, byte[] section) {
    ByteBuf records = codec.compress(Unpooled.wrappedBuffer(section), alloc);
    ByteBuf buf =
        alloc
            .buffer()
            .writeLong(0)
            .writeInt(RecordBatch.MIN_BATCH_LENGTH + records.readableBytes())
            .writeInt(-1)
            .writeByte(RecordBatch.MAGIC_V2)
            .writeInt(0)
            .writeShort(codec.id())
            .writeInt(Math.max(0, count - 1))
            .writeLong(KafkaInterop.BASE_TIME)
            .writeLong(KafkaInterop.BASE_TIME)
            .writeLong(-1)
            .writeShort(-1)
            .writeInt(-1)
            .writeInt(count)
            .writeBytes(records);
    records.release();
    RecordBatch.at(buf, 0).updateCrc();
    return buf;
  }

  /**
   * Reads every record twice, building them ({@link RecordIterator#next}) and not ({@link
   * RecordIterator#skipNext}): both walks must see the same fields and fail at the same place with
   * the same message, which is then thrown.
   */
  private void readAll(RecordBatch batch) {
    List<String> built = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    InvalidRecordException buildFailure = walk(batch, true, built);
    InvalidRecordException skipFailure = walk(batch, false, skipped);
    assertEquals(built, skipped);
    assertEquals(
        buildFailure == null ? null : buildFailure.getMessage(),
        skipFailure == null ? null : skipFailure.getMessage());
    if (buildFailure != null) {
      throw buildFailure;
    }
  }

  private InvalidRecordException walk(RecordBatch batch, boolean build, List<String> seen) {
    try (RecordIterator records = batch.records(CAP, alloc)) {
      while (records.hasNext()) {
        if (build) {
          Record r = records.next();
          assertNotNull(r.headers());
          seen.add(r.offsetDelta() + "/" + r.timestamp() + "/" + (r.key() != null));
          assertEquals(r.offsetDelta(), records.offsetDelta());
        } else {
          records.skipNext();
          seen.add(records.offsetDelta() + "/" + records.timestamp() + "/" + records.hasKey());
        }
      }
      return null;
    } catch (InvalidRecordException e) {
      return e;
    }
  }

  // ---- truncation, bit flips, bombs ----

  private ByteBuf sampleBatch(Compression codec) {
    Spec spec = Spec.plain(codec).withProducer(3L, (short) 0, 0, false);
    return KafkaInterop.buildOurs(spec, KafkaInterop.samples(new Random(21), 0, false), alloc);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void truncatedAtEveryLength(Compression codec) {
    ByteBuf whole = sampleBatch(codec);
    int size = whole.readableBytes();
    for (int length = 0; length < size; length++) {
      ByteBuf cut = whole.slice(0, length);
      RecordBatches.Walker walker = RecordBatches.walk(cut);
      assertTrue(!walker.hasNext(), "length " + length);
      assertSame(length == 0 ? End.COMPLETE : End.PARTIAL_BATCH, walker.end(), "length " + length);
      Code code = RecordBatches.validateForProduce(cut, 9, CAP).code();
      assertSame(length == 0 ? Code.NO_BATCHES : Code.CORRUPT_LENGTH, code, "length " + length);
      int at = length;
      assertThrows(InvalidRecordException.class, () -> RecordBatch.at(cut, 0), "length " + at);

      // The same cut with batchLength and CRC made consistent: the records themselves are short.
      if (length >= RecordBatch.HEADER_SIZE) {
        ByteBuf fixed = alloc.buffer(length).writeBytes(whole, 0, length);
        fixed.setInt(RecordBatch.BATCH_LENGTH_OFFSET, length - RecordBatch.LOG_OVERHEAD);
        RecordBatch batch = RecordBatch.at(fixed, 0);
        batch.updateCrc();
        assertTrue(RecordBatches.validateForProduce(fixed, 9, CAP).isValid());
        ValidationResult result = RecordBatches.validateRecords(batch, CAP);
        assertSame(Code.INVALID_RECORDS, result.code(), "length " + length);
        fixed.release();
      }
    }
    whole.release();
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void everyFlippedBitIsCaught(Compression codec) {
    ByteBuf whole = sampleBatch(codec);
    int size = whole.readableBytes();
    for (int pos = 0; pos < size; pos++) {
      for (int bit = 0; bit < 8; bit++) {
        ByteBuf buf = alloc.buffer(size).writeBytes(whole, 0, size);
        buf.setByte(pos, buf.getByte(pos) ^ (1 << bit));
        Code expected;
        if (pos < RecordBatch.BATCH_LENGTH_OFFSET) {
          expected = Code.INVALID_BASE_OFFSET;
        } else if (pos < RecordBatch.PARTITION_LEADER_EPOCH_OFFSET) {
          expected = Code.CORRUPT_LENGTH;
        } else if (pos < RecordBatch.MAGIC_OFFSET) {
          expected = Code.VALID; // the leader epoch is not covered by the CRC
        } else if (pos == RecordBatch.MAGIC_OFFSET) {
          expected = Code.UNSUPPORTED_MAGIC;
        } else {
          expected = Code.CRC_MISMATCH;
        }
        ValidationResult result = RecordBatches.validateForProduce(buf, 9, CAP);
        assertSame(expected, result.code(), "byte " + pos + " bit " + bit + ": " + result);
        readAllowingOnlyInvalidRecord(buf, "byte " + pos + " bit " + bit);
        buf.release();
      }
    }
    whole.release();
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void decompressionBombInABatch(Compression codec) {
    ByteBuf buf =
        new RecordBatchBuilder()
            .compression(codec)
            .append(KafkaInterop.BASE_TIME, null, new byte[24 << 20])
            .build(alloc);
    assertTrue(buf.readableBytes() < (24 << 20) / 10, codec + " " + buf.readableBytes());
    RecordBatch batch = RecordBatch.at(buf, 0);
    assertTrue(RecordBatches.validateForProduce(buf, 9, 8 << 20).isValid());
    InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> readAll(batch));
    assertTrue(e.getMessage().contains("inflates past the limit of " + CAP), e.getMessage());
    assertSame(Code.INVALID_RECORDS, RecordBatches.validateRecords(batch, CAP).code());
    buf.release();
  }

  // ---- random mutation ----

  @ParameterizedTest
  @EnumSource(Compression.class)
  void randomMutationsOnlyEverFailCleanly(Compression codec) {
    Random random = new Random(0x6b656c70L + codec.id());
    List<ByteBuf> originals =
        List.of(
            sampleBatch(codec),
            KafkaInterop.buildOurs(
                Spec.plain(codec).withBaseOffset(0),
                KafkaInterop.samples(new Random(22), 0, false).subList(0, 3),
                alloc));
    int decoded = 0;
    for (int i = 0; i < 3000; i++) {
      ByteBuf original = originals.get(random.nextInt(originals.size()));
      ByteBuf buf = alloc.buffer().writeBytes(original, 0, original.readableBytes());
      int mutations = 1 + random.nextInt(3);
      for (int m = 0; m < mutations; m++) {
        mutate(buf, random);
      }
      if (random.nextBoolean() && buf.readableBytes() >= RecordBatch.HEADER_SIZE) {
        // Make the framing and CRC consistent so the mutation reaches the records and codecs.
        buf.setInt(RecordBatch.BATCH_LENGTH_OFFSET, buf.readableBytes() - RecordBatch.LOG_OVERHEAD);
        buf.setByte(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC_V2);
        RecordBatch.at(buf, 0).updateCrc();
      }
      String where = codec + " mutation " + i;
      try {
        assertNotNull(RecordBatches.validateForProduce(buf, 9, CAP), where);
        decoded += readAllowingOnlyInvalidRecord(buf, where);
      } finally {
        buf.release();
      }
    }
    assertTrue(decoded > 0, "some mutations should still decode");
    originals.forEach(ByteBuf::release);
  }

  private static void mutate(ByteBuf buf, Random random) {
    int size = buf.writerIndex();
    int pos = size == 0 ? 0 : random.nextInt(size);
    switch (random.nextInt(6)) {
      case 0 -> {
        if (size > 0) {
          buf.setByte(pos, buf.getByte(pos) ^ (1 << random.nextInt(8)));
        }
      }
      case 1 -> {
        if (size > 0) {
          int[] values = {0x00, 0xff, 0x7f, 0x80, 0x01, random.nextInt(256)};
          buf.setByte(pos, values[random.nextInt(values.length)]);
        }
      }
      case 2 -> buf.writerIndex(pos);
      case 3 -> {
        byte[] tail = ByteBufUtil.getBytes(buf, pos, size - pos);
        buf.writerIndex(pos);
        for (int n = 1 + random.nextInt(8); n > 0; n--) {
          buf.writeByte(random.nextInt(256));
        }
        buf.writeBytes(tail);
      }
      case 4 -> {
        int n = Math.min(size - pos, 1 + random.nextInt(16));
        byte[] tail = ByteBufUtil.getBytes(buf, pos + n, size - pos - n);
        buf.writerIndex(pos).writeBytes(tail);
      }
      default -> {
        if (size - pos >= 4) {
          int[] values = {-1, 0, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, size, random.nextInt()};
          buf.setInt(pos, values[random.nextInt(values.length)]);
        }
      }
    }
  }

  /** Walks and reads everything; returns 1 if it all decoded, 0 if it failed cleanly. */
  private int readAllowingOnlyInvalidRecord(ByteBuf buf, String where) {
    try {
      RecordBatches.Walker walker = RecordBatches.walk(buf);
      while (walker.hasNext()) {
        RecordBatch batch = walker.next();
        batch.toString();
        readAll(batch);
      }
      assertNotNull(walker.end());
      RecordBatch.at(buf, 0);
      return 1;
    } catch (InvalidRecordException expected) {
      assertNotNull(expected.getMessage(), where);
      return 0;
    } catch (RuntimeException | Error e) {
      fail(where + ": " + e, e);
      return 0;
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void validBatchesStillReadAfterTheHostileOnes(Compression codec) {
    ByteBuf buf = sampleBatch(codec);
    assertEquals(1, readAllowingOnlyInvalidRecord(buf, codec.name()));
    buf.release();
  }
}
