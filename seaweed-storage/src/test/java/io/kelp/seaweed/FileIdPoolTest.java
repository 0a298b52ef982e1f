package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import io.kelp.seaweed.filer.FilerProto.Location;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

  /**
   * Ids come from assignments made ahead, and the background thread is woken only when a
   * directory's supply runs low, not once per id.
   */
  @Test
  void idsComeFromAssignmentsAheadAndTheBackgroundWakesOnlyWhenLow() throws Exception {
    AtomicInteger assigns = new AtomicInteger();
    AtomicInteger ids = new AtomicInteger();
    FileIdPool.Assigner assigner =
        (directory, count) -> {
          assigns.incrementAndGet();
          int first = ids.getAndAdd(count) + 1;
          return AssignVolumeResponse.newBuilder()
              .setFileId("3," + Integer.toHexString(first) + "0abcdef0")
              .setCount(count)
              .setLocation(Location.newBuilder().setUrl("127.0.0.1:1"))
              .build();
        };
    try (FileIdPool pool = new FileIdPool(assigner, 64)) {
      Set<String> taken = new HashSet<>();
      taken.add(pool.take("/d").fileId()); // the first id is assigned on the spot
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (assigns.get() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      for (int i = 0; i < 300; i++) {
        taken.add(pool.take("/d").fileId());
        while (pool.refills() > pool.toppedUp() && System.nanoTime() < deadline) {
          Thread.sleep(1); // the top-up this take asked for ends before the next take
        }
      }
      assertEquals(301, taken.size(), "every id is new");
      // 300 ids from batches of 64, topped up at half: about 300 / 32 top-ups, not 300
      assertTrue(pool.refills() <= 12, "refills " + pool.refills());
      assertTrue(assigns.get() <= 12, "assignments " + assigns.get());
    }
  }
}
