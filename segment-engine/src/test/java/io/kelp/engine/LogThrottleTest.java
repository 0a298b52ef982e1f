package io.kelp.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LogThrottleTest {
  @Test
  void theFirstOccurrenceIsLoggedAndTheRestCountedUntilThePeriodHasPassed() throws Exception {
    LogThrottle throttle = new LogThrottle(Duration.ofMillis(200));
    assertEquals(1, throttle.count(), "the first occurrence gets a line");
    assertEquals(0, throttle.count());
    assertEquals(0, throttle.count());
    Thread.sleep(250);
    assertEquals(3, throttle.count(), "the next line counts the two held back and this one");
    assertEquals(0, throttle.count());
  }
}
