package io.kelp.engine.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class SegmentFileTest {
  @Test
  void namesCarryTheBaseOffsetInTwentyDigits() {
    assertEquals("00000000000000000000.log", SegmentFile.logName(0, 0));
    assertEquals("00000000000000001000.c3.index", SegmentFile.indexName(1000, 3));
    assertEquals("09223372036854775807.log", SegmentFile.logName(Long.MAX_VALUE, 0));
    assertEquals("00000000000012345678.index", SegmentFile.indexName(12_345_678, 0));
  }

  @Test
  void namesParseBack() {
    for (long offset : new long[] {0, 7, 1000, 99_999_999_999L, Long.MAX_VALUE}) {
      assertEquals(
          Optional.of(new SegmentFile(offset, 0, SegmentFile.Kind.LOG)),
          SegmentFile.parse(SegmentFile.logName(offset, 0)));
      assertEquals(
          Optional.of(new SegmentFile(offset, 2, SegmentFile.Kind.INDEX)),
          SegmentFile.parse(SegmentFile.indexName(offset, 2)));
    }
    assertEquals(Optional.empty(), SegmentFile.parse("0000000000000000001.log"));
    assertEquals(Optional.empty(), SegmentFile.parse("00000000000000000001.c0.log"));
    assertEquals(Optional.empty(), SegmentFile.parse("00000000000000000001.txt"));
  }
}
