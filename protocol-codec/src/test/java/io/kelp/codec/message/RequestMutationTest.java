package io.kelp.codec.message;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.codec.wire.RequestHeader;
import io.kelp.codec.wire.WireWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Feeds corrupted versions of valid request frames, for every API and version, to the request
 * parser: flipped bits, truncations, inserted bytes, huge and negative lengths, runaway varints.
 * Every frame must end in a status (never an exception, an OutOfMemoryError or a hang), and a frame
 * that still parses must be writable again. Fixed seed, a bounded number of mutations.
 */
class RequestMutationTest {
  private static final long SEED = 20261129L;
  private static final int MUTATIONS_PER_FRAME = 60;

  @Test
  void corruptedFramesNeverEscapeTheParser() {
    Random random = new Random(SEED);
    List<byte[]> frames = validFrames(random);
    Map<ParsedRequest.Status, Integer> outcomes = new EnumMap<>(ParsedRequest.Status.class);
    int total = 0;
    for (byte[] frame : frames) {
      for (int i = 0; i < MUTATIONS_PER_FRAME; i++) {
        byte[] mutated = mutate(frame, random);
        ParsedRequest parsed;
        try {
          parsed = Requests.parse(Unpooled.wrappedBuffer(mutated));
        } catch (Throwable t) {
          fail("parser threw on " + ByteBufUtil.hexDump(mutated), t);
          return;
        }
        assertNotNull(parsed.status());
        if (parsed.status() == ParsedRequest.Status.OK) {
          rewrite(parsed, mutated);
        } else {
          assertNotNull(parsed.error(), "an error status without a reason");
        }
        outcomes.merge(parsed.status(), 1, Integer::sum);
        total++;
      }
    }
    System.out.printf("%d mutated frames of %d valid ones: %s%n", total, frames.size(), outcomes);
    assertTrue(outcomes.getOrDefault(ParsedRequest.Status.MALFORMED_BODY, 0) > 0);
  }

  private static void rewrite(ParsedRequest parsed, byte[] mutated) {
    ByteBuf out = Unpooled.buffer();
    try {
      parsed.body().write(new WireWriter(out), parsed.header().apiVersion());
    } catch (RuntimeException e) {
      fail("a parsed frame could not be written back: " + ByteBufUtil.hexDump(mutated), e);
    }
  }

  /** One populated request per API and version, with its header, as the client would send it. */
  static List<byte[]> validFrames(Random random) {
    List<byte[]> frames = new ArrayList<>();
    for (ApiMessageType api : ApiMessageTypes.all()) {
      for (short v = api.lowestVersion(); v <= api.highestVersion(); v++) {
        short version = v;
        ApiMessage body = api.newRequest();
        new MessagePopulator(
                body,
                random,
                MessageCompatibilityTest.OURS,
                m -> writable((ApiMessage) m, version),
                false)
            .populate();
        ByteBuf out = Unpooled.buffer();
        WireWriter writer = new WireWriter(out);
        new RequestHeader(api.apiKey(), v, random.nextInt(), "client-" + v)
            .write(writer, api.requestHeaderVersion(v));
        body.write(writer, v);
        frames.add(ByteBufUtil.getBytes(out));
      }
    }
    return frames;
  }

  private static boolean writable(ApiMessage message, short version) {
    try {
      message.write(new WireWriter(Unpooled.buffer()), version);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  static byte[] mutate(byte[] frame, Random random) {
    byte[] b = frame.clone();
    int kind = random.nextInt(6);
    switch (kind) {
      case 0 -> {
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
      }
      case 1 -> {
        return java.util.Arrays.copyOf(b, random.nextInt(b.length));
      }
      case 2 -> {
        int at = random.nextInt(b.length + 1);
        byte[] extra = new byte[1 + random.nextInt(8)];
        random.nextBytes(extra);
        byte[] out = new byte[b.length + extra.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(extra, 0, out, at, extra.length);
        System.arraycopy(b, at, out, at + extra.length, b.length - at);
        return out;
      }
      case 3 -> {
        // A huge or negative int32 where a length or count may be.
        int[] values = {Integer.MAX_VALUE, -1, -2, Integer.MIN_VALUE, 0x00ffffff};
        int at = random.nextInt(Math.max(1, b.length - 3));
        int value = values[random.nextInt(values.length)];
        for (int i = 0; i < 4 && at + i < b.length; i++) {
          b[at + i] = (byte) (value >>> (24 - 8 * i));
        }
      }
      case 4 -> {
        // A runaway varint: continuation bits with no end.
        int at = random.nextInt(b.length);
        for (int i = 0; i < 6 && at + i < b.length; i++) {
          b[at + i] = (byte) 0xff;
        }
      }
      default -> {
        // A huge or negative int16 where a string length may be.
        short[] values = {Short.MAX_VALUE, -1, -2, Short.MIN_VALUE};
        int at = random.nextInt(Math.max(1, b.length - 1));
        short value = values[random.nextInt(values.length)];
        b[at] = (byte) (value >>> 8);
        if (at + 1 < b.length) {
          b[at + 1] = (byte) value;
        }
      }
    }
    return b;
  }
}
