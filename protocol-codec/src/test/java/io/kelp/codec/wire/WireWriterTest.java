package io.kelp.codec.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WireWriterTest {

  private static byte[] copyMode(byte[][] records) {
    ByteBuf out = Unpooled.buffer();
    write(new WireWriter(out), records);
    return ByteBufUtil.getBytes(out);
  }

  private static void write(WireWriter w, byte[][] records) {
    w.writeInt32(0x01020304);
    for (byte[] r : records) {
      w.writeString(true, "topic", false, "Name");
      w.writeRecords(true, Unpooled.wrappedBuffer(r), true, "Records");
      w.writeInt16((short) 7);
    }
    w.writeUnsignedVarint(0);
  }

  @Test
  void zeroCopyFramesHoldTheSameBytesAsCopiedOnesAndReleaseEverything() {
    Random random = new Random(3);
    byte[][] records = new byte[12][];
    for (int i = 0; i < records.length; i++) {
      records[i] = new byte[i % 3 == 0 ? 10 : 5000 + i];
      random.nextBytes(records[i]);
    }
    ByteBuf[] sources = new ByteBuf[records.length];
    WireWriter w = WireWriter.zeroCopy(PooledByteBufAllocator.DEFAULT, 4096);
    w.writeInt32(0x01020304);
    for (int i = 0; i < records.length; i++) {
      sources[i] = PooledByteBufAllocator.DEFAULT.buffer().writeBytes(records[i]);
      w.writeString(true, "topic", false, "Name");
      w.writeRecords(true, sources[i], true, "Records");
      w.writeInt16((short) 7);
    }
    w.writeUnsignedVarint(0);
    int size = w.size();
    ByteBuf frame = w.finish();
    assertEquals(size, frame.readableBytes());
    frame.setInt(0, 0x01020304);
    assertArrayEquals(copyMode(records), ByteBufUtil.getBytes(frame));
    for (ByteBuf s : sources) {
      assertEquals(s.refCnt() > 1 ? 2 : 1, s.refCnt());
      s.release();
    }
    frame.release();
    for (ByteBuf s : sources) {
      assertEquals(0, s.refCnt(), "records still referenced after the frame was released");
    }
  }

  @Test
  void abandonReleasesWhatWasRetained() {
    ByteBuf big = PooledByteBufAllocator.DEFAULT.buffer().writeBytes(new byte[8192]);
    WireWriter w = WireWriter.zeroCopy(PooledByteBufAllocator.DEFAULT, 4096);
    w.writeRecords(false, big, false, "Records");
    assertEquals(2, big.refCnt());
    w.abandon();
    assertEquals(1, big.refCnt());
    big.release();
  }
}
