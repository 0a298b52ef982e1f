package io.kelp.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the flusher waits for a produce connection's requests, on a clock the test moves. */
class ProduceConnectionsTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final AtomicInteger wakes = new AtomicInteger();
  private final ProduceConnections connections =
      new ProduceConnections(clock::get, wakes::incrementAndGet);

  private static void send(ProduceConnection c, int requests) {
    for (int i = 0; i < requests; i++) {
      c.requestArrived();
      c.requestAppended();
    }
  }

  private static void answer(ProduceConnection c, int requests) {
    for (int i = 0; i < requests; i++) {
      c.requestAnswered();
    }
  }

  private void advanceMicros(long micros) {
    clock.addAndGet(micros * 1_000);
  }

  @Test
  void aPipelinedConnectionIsWaitedForUntilAsManyRequestsAsBeforeAreIn() {
    ProduceConnection c = connections.open();
    send(c, 5);
    assertFalse(connections.stillSending(), "five of five in");
    advanceMicros(2_000);
    answer(c, 5);
    assertEquals(0, connections.busyConnections());
    advanceMicros(300);
    send(c, 3);
    assertTrue(connections.stillSending(), "three of five, right after its answers");
    int before = wakes.get();
    send(c, 1);
    assertTrue(connections.stillSending());
    assertEquals(before, wakes.get(), "woken with one request still to come");
    send(c, 1);
    assertFalse(connections.stillSending());
    assertEquals(before + 1, wakes.get(), "not woken once all five were in");
  }

  @Test
  void aRequestStillQueuingItsAppendsHoldsTheCycle() {
    ProduceConnection c = connections.open();
    c.requestArrived();
    assertTrue(connections.stillSending(), "a cycle could start without the request's appends");
    c.requestAppended();
    assertFalse(connections.stillSending(), "a first request alone is not waited for");
    assertEquals(1, wakes.get());
  }

  @Test
  void aConnectionAnsweredLongAgoIsNotWaitedFor() {
    ProduceConnection c = connections.open();
    send(c, 5);
    answer(c, 5);
    advanceMicros(ProduceConnections.QUIET_NANOS / 1_000 + 1_000);
    send(c, 1);
    assertFalse(connections.stillSending(), "a lone request after a quiet spell was waited for");
    // once others wait, its next ones come pipelined
    send(c, 1);
    assertTrue(connections.stillSending());
  }

  @Test
  void givingUpLowersWhatIsExpected() {
    ProduceConnection c = connections.open();
    send(c, 5);
    answer(c, 5);
    send(c, 3);
    assertTrue(connections.stillSending());
    connections.gaveUp();
    assertFalse(connections.stillSending(), "still waited for after the flusher gave up");
    answer(c, 3);
    send(c, 2);
    assertTrue(connections.stillSending());
    send(c, 1);
    assertFalse(connections.stillSending(), "three are what it sends now");
  }

  @Test
  void requestsWithNothingToWaitForAreAnsweredAtOnce() {
    ProduceConnection c = connections.open();
    send(c, 1);
    answer(c, 1);
    answer(c, 1); // one answer too many is ignored
    assertEquals(0, connections.busyConnections());
    send(c, 2);
    assertEquals(1, connections.busyConnections());
  }

  @Test
  void aClosedConnectionIsForgottenAndWakesTheFlusher() {
    ProduceConnection c = connections.open();
    ProduceConnection other = connections.open();
    send(c, 5);
    answer(c, 5);
    send(c, 2);
    send(other, 1);
    assertTrue(connections.stillSending());
    int before = wakes.get();
    c.close();
    assertFalse(connections.stillSending(), "a closed connection was waited for");
    assertEquals(before + 1, wakes.get());
    assertEquals(1, connections.busyConnections());
    send(c, 3);
    answer(c, 3);
    assertEquals(1, connections.busyConnections(), "a closed connection came back");
  }
}
