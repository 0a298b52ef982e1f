package io.kelp.codec.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.lz4.LZ4FrameOutputStream.BLOCKSIZE;
import net.jpountz.lz4.LZ4FrameOutputStream.FLG;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.xerial.snappy.Snappy;

class CompressionTest {
  private static final int MAX = 16 << 20;

  private final TrackingAllocator alloc = new TrackingAllocator();

  @AfterEach
  void noLeaks() {
    alloc.assertAllReleased();
  }

  private static List<byte[]> inputs() {
    Random random = new Random(42);
    byte[] text = new byte[300_000];
    for (int i = 0; i < text.length; i++) {
      text[i] = (byte) ("kelp records ".charAt(i % 13) + (i / 4096) % 3);
    }
    return List.of(
        new byte[0],
        new byte[] {7},
        KafkaInterop.bytes(random, 1000),
        text,
        KafkaInterop.bytes(random, 150_000));
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void roundTripsThroughOurCodec(Compression codec) {
    for (byte[] input : inputs()) {
      ByteBuf compressed = codec.compress(Unpooled.wrappedBuffer(input), alloc);
      ByteBuf back = codec.decompress(compressed, MAX, alloc);
      assertArrayEquals(input, ByteBufUtil.getBytes(back), codec + " " + input.length);
      compressed.release();
      back.release();
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void kafkaReadsWhatWeCompress(Compression codec) throws IOException {
    for (byte[] input : inputs()) {
      ByteBuf compressed = codec.compress(Unpooled.wrappedBuffer(input), alloc);
      byte[] read = kafkaDecompress(codec, ByteBufUtil.getBytes(compressed));
      assertArrayEquals(input, read, codec + " " + input.length);
      compressed.release();
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void weReadWhatKafkaCompresses(Compression codec) throws IOException {
    for (byte[] input : inputs()) {
      byte[] compressed = kafkaCompress(codec, input);
      ByteBuf back = codec.decompress(Unpooled.wrappedBuffer(compressed), MAX, alloc);
      assertArrayEquals(input, ByteBufUtil.getBytes(back), codec + " " + input.length);
      back.release();
    }
  }

  @Test
  void lz4MatchesKafkaByteForByte() throws IOException {
    for (byte[] input : inputs()) {
      ByteBuf ours = Compression.LZ4.compress(Unpooled.wrappedBuffer(input), alloc);
      assertArrayEquals(kafkaCompress(Compression.LZ4, input), ByteBufUtil.getBytes(ours));
      ours.release();
    }
  }

  @Test
  void snappyAcceptsRawBlocks() throws IOException {
    for (byte[] input : inputs()) {
      if (input.length == 0) {
        continue;
      }
      byte[] raw = Snappy.compress(input);
      ByteBuf back = Compression.SNAPPY.decompress(Unpooled.wrappedBuffer(raw), MAX, alloc);
      assertArrayEquals(input, ByteBufUtil.getBytes(back));
      back.release();
    }
  }

  @Test
  void snappyReadsConcatenatedFramedStreams() {
    byte[] a = KafkaInterop.utf8("first stream, ");
    byte[] b = KafkaInterop.utf8("second stream");
    ByteBuf ca = Compression.SNAPPY.compress(Unpooled.wrappedBuffer(a), alloc);
    ByteBuf cb = Compression.SNAPPY.compress(Unpooled.wrappedBuffer(b), alloc);
    ByteBuf both = Unpooled.wrappedBuffer(ByteBufUtil.getBytes(ca), ByteBufUtil.getBytes(cb));
    ByteBuf back = Compression.SNAPPY.decompress(both, MAX, alloc);
    assertEquals(
        "first stream, second stream", back.toString(java.nio.charset.StandardCharsets.UTF_8));
    ca.release();
    cb.release();
    back.release();
  }

  @Test
  void lz4ReadsFramesWithChecksumsAndContentSize() throws IOException {
    byte[] input = inputs().get(3);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out =
        new LZ4FrameOutputStream(
            bytes,
            BLOCKSIZE.SIZE_256KB,
            input.length,
            FLG.Bits.BLOCK_INDEPENDENCE,
            FLG.Bits.BLOCK_CHECKSUM,
            FLG.Bits.CONTENT_CHECKSUM,
            FLG.Bits.CONTENT_SIZE)) {
      out.write(input);
    }
    ByteBuf back =
        Compression.LZ4.decompress(Unpooled.wrappedBuffer(bytes.toByteArray()), MAX, alloc);
    assertArrayEquals(input, ByteBufUtil.getBytes(back));
    back.release();

    // A corrupted block fails its block checksum.
    byte[] corrupt = bytes.toByteArray();
    corrupt[40] ^= 1;
    InvalidRecordException e =
        assertThrows(
            InvalidRecordException.class,
            () -> Compression.LZ4.decompress(Unpooled.wrappedBuffer(corrupt), MAX, alloc));
    assertTrue(e.getMessage().contains("lz4"), e.getMessage());
  }

  @Test
  void lz4RejectsDependentBlocks() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = new LZ4FrameOutputStream(bytes, BLOCKSIZE.SIZE_64KB)) {
      out.write(inputs().get(3));
    }
    byte[] frame = bytes.toByteArray();
    assertEquals(1 << 5, frame[4] & (1 << 5), "lz4-java writes independent blocks");
    frame[4] &= (byte) ~(1 << 5);
    assertInvalid(Compression.LZ4, frame, "dependent blocks");
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void decompressionBombStopsAtTheCap(Compression codec) {
    byte[] zeros = new byte[32 << 20];
    ByteBuf bomb = codec.compress(Unpooled.wrappedBuffer(zeros), alloc);
    if (codec != Compression.NONE) {
      assertTrue(bomb.readableBytes() < zeros.length / 10, codec + " " + bomb.readableBytes());
    }
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> codec.decompress(bomb, 1 << 20, alloc));
    assertTrue(e.getMessage().contains("inflates past the limit of 1048576"), e.getMessage());
    bomb.release();
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void outputOfExactlyTheCapIsAllowed(Compression codec) {
    byte[] input = inputs().get(2);
    ByteBuf compressed = codec.compress(Unpooled.wrappedBuffer(input), alloc);
    ByteBuf back = codec.decompress(compressed, input.length, alloc);
    assertArrayEquals(input, ByteBufUtil.getBytes(back));
    back.release();
    assertThrows(
        InvalidRecordException.class, () -> codec.decompress(compressed, input.length - 1, alloc));
    compressed.release();
  }

  @Test
  void rawSnappyBombIsRejectedBeforeAllocating() throws IOException {
    byte[] raw = Snappy.compress(new byte[1000]);
    // Replace the declared length (a varint) with 2^32 - 1.
    byte[] lying = new byte[raw.length + 3];
    lying[0] = (byte) 0xff;
    lying[1] = (byte) 0xff;
    lying[2] = (byte) 0xff;
    lying[3] = (byte) 0xff;
    lying[4] = 0x0f;
    int header = 2; // 1000 takes two varint bytes
    System.arraycopy(raw, header, lying, 5, raw.length - header);
    assertInvalid(Compression.SNAPPY, lying, "inflates past");
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void garbageAndTruncationFailCleanly(Compression codec) {
    Random random = new Random(7);
    for (int i = 0; i < 50; i++) {
      byte[] garbage = KafkaInterop.bytes(random, random.nextInt(200));
      assertInvalidOrDecodes(codec, garbage);
    }
    byte[] input = inputs().get(3);
    ByteBuf compressed = codec.compress(Unpooled.wrappedBuffer(input), alloc);
    byte[] whole = ByteBufUtil.getBytes(compressed);
    compressed.release();
    for (int length = 0; length < whole.length; length += 1 + length / 8) {
      byte[] cut = java.util.Arrays.copyOf(whole, length);
      if (codec == Compression.SNAPPY) {
        // The xerial framing has no end mark: a cut between blocks is a shorter valid stream.
        assertInvalidOrDecodes(codec, cut);
      } else {
        assertInvalid(codec, cut, codec.wireName());
      }
    }
  }

  @Test
  void unknownCodecIds() {
    for (int id = 5; id < 8; id++) {
      assertNull(Compression.forIdOrNull(id));
      int bad = id;
      assertThrows(InvalidRecordException.class, () -> Compression.forId(bad));
    }
    for (Compression c : Compression.values()) {
      assertEquals(c, Compression.forId(c.id()));
      assertEquals(CompressionType.forId(c.id()).name, c.wireName());
    }
  }

  private void assertInvalid(Compression codec, byte[] input, String expected) {
    InvalidRecordException e =
        assertThrows(
            InvalidRecordException.class,
            () -> codec.decompress(Unpooled.wrappedBuffer(input), MAX, alloc).release());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  private void assertInvalidOrDecodes(Compression codec, byte[] input) {
    try {
      codec.decompress(Unpooled.wrappedBuffer(input), MAX, alloc).release();
    } catch (InvalidRecordException expected) {
      // the only failure allowed
    }
  }

  static byte[] kafkaCompress(Compression codec, byte[] input) throws IOException {
    ByteBufferOutputStream out = new ByteBufferOutputStream(256);
    try (OutputStream stream =
        org.apache.kafka.common.compress.Compression.of(CompressionType.forId(codec.id()))
            .build()
            .wrapForOutput(out, org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2)) {
      stream.write(input);
    }
    ByteBuffer buffer = out.buffer();
    buffer.flip();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  static byte[] kafkaDecompress(Compression codec, byte[] compressed) throws IOException {
    try (InputStream in =
        org.apache.kafka.common.compress.Compression.of(CompressionType.forId(codec.id()))
            .build()
            .wrapForInput(
                ByteBuffer.wrap(compressed),
                org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2,
                BufferSupplier.create())) {
      return in.readAllBytes();
    }
  }
}
