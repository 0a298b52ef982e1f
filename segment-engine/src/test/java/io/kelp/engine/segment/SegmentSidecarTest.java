package io.kelp.engine.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatchBuilder;
import io.kelp.engine.producer.ProducerEntry;
import io.kelp.engine.producer.ProducerStateTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SegmentSidecarTest {
  private static final UnpooledByteBufAllocator ALLOC = new UnpooledByteBufAllocator(false);

  @Test
  void aSidecarReadsBackWhatWasWritten() {
    Segment segment = new Segment("/p", 100, 0, 777);
    ProducerStateTable producers = new ProducerStateTable();
    long position = 0;
    for (int i = 0; i < 50; i++) {
      ByteBuf batch =
          new RecordBatchBuilder()
              .baseOffset(100 + 2 * i)
              .producer(5, (short) 1, 2 * i)
              .append(1000 + i, null, new byte[100])
              .append(900, null, new byte[100])
              .build(ALLOC);
      RecordBatch view = RecordBatch.at(batch, 0);
      segment.onBatch(view, position, 1000);
      producers.apply(view);
      position += view.sizeInBytes();
      batch.release();
    }
    segment.setValidLength(position);
    ByteBuf encoded = SegmentSidecar.encode(segment, true, producers, ALLOC);
    SegmentSidecar.Contents c = SegmentSidecar.decode(encoded);
    assertEquals(100, c.baseOffset());
    assertEquals(position, c.validLength());
    assertEquals(199, c.lastOffset());
    assertEquals(1049, c.maxTimestamp());
    assertEquals(198, c.offsetOfMaxTimestamp());
    assertEquals(777, c.createdMs());
    assertTrue(c.sealed());
    assertTrue(c.index().offsetEntries() > 5, "sparse but not empty");
    assertEquals(segment.index().positionFor(77), c.index().positionFor(77));
    assertEquals(segment.index().offsetBefore(1030), c.index().offsetBefore(1030));
    ProducerEntry p = c.producers().get(5);
    assertEquals(ProducerEntry.BATCHES_TO_RETAIN, p.batches().size());
    assertEquals(99, p.lastSequence());
    assertEquals(199, p.lastOffset());

    for (int i : new int[] {3, 12, 40, encoded.writerIndex() - 1}) {
      ByteBuf damaged = encoded.copy();
      damaged.setByte(i, damaged.getByte(i) ^ 0x10);
      assertThrows(IllegalArgumentException.class, () -> SegmentSidecar.decode(damaged));
      damaged.release();
    }
    ByteBuf cut = encoded.slice(0, encoded.writerIndex() - 7);
    assertThrows(IllegalArgumentException.class, () -> SegmentSidecar.decode(cut));
    encoded.release();
  }

  @Test
  void theIndexPointsAtOrBeforeTheBatchHoldingAnOffset() {
    SegmentIndex index = new SegmentIndex();
    index.addOffset(10, 4000);
    index.addOffset(25, 8100);
    assertEquals(0, index.positionFor(9));
    assertEquals(4000, index.positionFor(10));
    assertEquals(4000, index.positionFor(24));
    assertEquals(8100, index.positionFor(1000));
    index.addTime(500, 10);
    index.addTime(400, 20);
    index.addTime(900, 25);
    assertEquals(0, index.offsetBefore(500));
    assertEquals(10, index.offsetBefore(501));
    assertEquals(25, index.offsetBefore(10_000));
  }

  @Test
  void segmentNames() {
    assertEquals("00000000000000001234.log", SegmentFile.logName(1234, 0));
    assertEquals("00000000000000001234.c7.index", SegmentFile.indexName(1234, 7));
    assertEquals(
        Optional.of(new SegmentFile(1234, 7, SegmentFile.Kind.LOG)),
        SegmentFile.parse("00000000000000001234.c7.log"));
    assertEquals(
        Optional.of(new SegmentFile(0, 0, SegmentFile.Kind.INDEX)),
        SegmentFile.parse("00000000000000000000.index"));
    for (String bad :
        new String[] {
          "partition.meta",
          "1234.log",
          "00000000000000001234.c.log",
          "00000000000000001234.c0.log",
          "00000000000000001234.x1.log",
          "0000000000000000123a.log",
          "00000000000000001234.log.tmp-1"
        }) {
      assertEquals(Optional.empty(), SegmentFile.parse(bad), bad);
    }
  }
}
