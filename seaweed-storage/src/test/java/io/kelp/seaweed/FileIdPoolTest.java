package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FileIdPoolTest {

  @Test
  void theIdsOfOneAssignmentAreTheFollowingNeedleKeysWithTheSameCookie() {
    assertEquals("3,01637037d6", FileIdPool.withDelta("3,01637037d6", 0));
    assertEquals("3,02637037d6", FileIdPool.withDelta("3,01637037d6", 1));
    assertEquals("3,10637037d6", FileIdPool.withDelta("3,0f637037d6", 1));
    // a key that grows past a byte boundary gains a byte, as SeaweedFS writes it
    assertEquals("7,0100abcdef01", FileIdPool.withDelta("7,ffabcdef01", 1));
    assertEquals("12,2c0000000000abcdef01", FileIdPool.withDelta("12,2bffffffffffabcdef01", 1));
  }

  @Test
  void malformedIdsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> FileIdPool.withDelta("nocomma", 1));
    assertThrows(IllegalArgumentException.class, () -> FileIdPool.withDelta("3,abcdef01", 1));
  }
}
