package io.kelp.gateway.coordinator.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.kelp.engine.TopicPartition;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.store.GroupLogFormat.CommitRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.DeletionRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.FrameWriter;
import io.kelp.gateway.coordinator.store.GroupLogFormat.GroupIdRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.MetadataRecord;
import io.kelp.gateway.coordinator.store.GroupLogFormat.Record;
import io.kelp.gateway.coordinator.store.GroupLogFormat.ScanResult;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupLogFormatTest {
  private static final TopicPartition T0 = new TopicPartition("orders", 0);
  private static final TopicPartition T1 = new TopicPartition("pay\u00E9", 7);

  private static ByteBuf twoFrames() {
    Map<TopicPartition, OffsetAndMetadata> commits = new LinkedHashMap<>();
    commits.put(T0, new OffsetAndMetadata(42, -1, null, 1, -1));
    commits.put(T1, new OffsetAndMetadata(Long.MAX_VALUE, 9, "meta", 2, 3));
    ByteBuf first = new FrameWriter(0).groupId("g").commits(commits).finish();
    ByteBuf second = new FrameWriter(0).deletions(List.of(T0)).metadata(new byte[] {1, 2}).finish();
    return Unpooled.wrappedBuffer(first, second);
  }

  @Test
  void framesReadBackRecordForRecord() {
    ByteBuf data = twoFrames();
    try {
      ScanResult r = GroupLogFormat.scan(data);
      assertNull(r.problem());
      assertEquals(data.readableBytes(), r.end());
      List<Record> first = r.frames().get(0).records();
      assertEquals(new GroupIdRecord("g"), first.get(0));
      assertEquals(new CommitRecord(T0, new OffsetAndMetadata(42, -1, null, 1, -1)), first.get(1));
      assertEquals(
          new CommitRecord(T1, new OffsetAndMetadata(Long.MAX_VALUE, 9, "meta", 2, 3)),
          first.get(2));
      List<Record> second = r.frames().get(1).records();
      assertEquals(new DeletionRecord(T0), second.get(0));
      assertArrayEquals(new byte[] {1, 2}, ((MetadataRecord) second.get(1)).metadata());
    } finally {
      data.release();
    }
  }

  @Test
  void everyCutShortObjectYieldsExactlyTheWholeFramesBeforeTheCut() {
    ByteBuf data = twoFrames();
    try {
      int firstEnd = GroupLogFormat.scan(data).frames().get(0).end();
      for (int cut = 0; cut < data.readableBytes(); cut++) {
        ScanResult r = GroupLogFormat.scan(data.slice(0, cut));
        int expectedFrames = cut >= firstEnd ? 1 : 0;
        assertEquals(expectedFrames, r.frames().size(), "cut at " + cut);
        assertEquals(expectedFrames == 1 ? firstEnd : 0, r.end(), "cut at " + cut);
        assertEquals(cut == 0 || cut == firstEnd, r.problem() == null, "cut at " + cut);
      }
    } finally {
      data.release();
    }
  }

  @Test
  void everyFlippedBitIsCaught() {
    ByteBuf data = twoFrames();
    try {
      int firstEnd = GroupLogFormat.scan(data).frames().get(0).end();
      for (int i = 0; i < firstEnd * 8; i++) {
        ByteBuf copy = Unpooled.copiedBuffer(data);
        copy.setByte(i / 8, copy.getByte(i / 8) ^ (1 << (i % 8)));
        ScanResult r = GroupLogFormat.scan(copy);
        assertEquals(0, r.frames().size(), "bit " + i);
        assertNotNull(r.problem());
        copy.release();
      }
    } finally {
      data.release();
    }
  }
}
