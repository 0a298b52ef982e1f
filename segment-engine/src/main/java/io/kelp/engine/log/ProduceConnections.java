package io.kelp.engine.log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The engine's produce connections, for the flusher's choice of when to start a cycle. A client at
 * acks=all with several requests in flight is answered together once a write ends, and then sends
 * the requests it held back, one after another. A cycle that starts at the first of them writes it
 * alone and the others in the next cycle: twice the writes, and the client's requests stay out of
 * step with the cycles. A partition's queue alone cannot tell which appends are on their way, since
 * one request carries several partitions, and which ones varies with what the client has ready.
 *
 * <p>So each connection counts its requests waiting for durability, and remembers how many it kept
 * waiting at once lately: its in-flight limit, as far as the broker saw it. The flusher holds a
 * cycle ({@link #stillSending}) while a request is still queuing its appends, and while a
 * connection is still sending: fewer requests than that wait, and the latest came while others
 * waited or less than {@link #QUIET_NANOS} after the connection was last answered. A client that
 * sends less often than the store writes (say, each linger.ms) is not waited for. A wait that ends
 * at the flusher's limit (flush.gather.ms) without the expected requests lowers what is expected of
 * each connection to what came.
 */
final class ProduceConnections {
  /**
   * Longest gap between a connection's answers and its next request for it to count as sending what
   * it held back. On a busy two-core machine the Java client took 0.3-1.7 ms (the middle half) from
   * its answers to its next request.
   */
  static final long QUIET_NANOS = 2_000_000;

  /** Most requests expected in flight on one connection. */
  static final int MAX_EXPECTED = 64;

  private final LongSupplier clock;

  /** Wakes the flusher when a connection it may be waiting for has all its requests in. */
  private final Runnable wake;

  /** Connections with requests waiting for durability. */
  private final Set<Tracked> busy = ConcurrentHashMap.newKeySet();

  ProduceConnections(LongSupplier clock, Runnable wake) {
    this.clock = clock;
    this.wake = wake;
  }

  ProduceConnection open() {
    return new Tracked();
  }

  /** Whether some connection is still sending requests worth waiting for. */
  boolean stillSending() {
    for (Tracked c : busy) {
      if (c.stillSending()) {
        return true;
      }
    }
    return false;
  }

  /** The flusher waited as long as it may: what each connection has in now is what it expects. */
  void gaveUp() {
    for (Tracked c : busy) {
      c.settle();
    }
  }

  /** How many connections have requests waiting for durability (for tests). */
  int busyConnections() {
    return busy.size();
  }

  private final class Tracked implements ProduceConnection {
    private int waiting;

    /** Requests counted in {@link #waiting} whose appends are still being queued. */
    private int appending;

    /** Most requests seen waiting at once lately. */
    private int expected = 1;

    /** When a request of this connection last came or was answered. */
    private long lastActivity;

    private boolean active;

    /**
     * Whether the latest request came while others waited, or soon after an answer: the client is
     * sending what it held back, and its next request is worth waiting for.
     */
    private boolean pipelined;

    private boolean closed;

    @Override
    public synchronized void requestArrived() {
      if (closed) {
        return;
      }
      long now = clock.getAsLong();
      pipelined = waiting > 0 || (active && now - lastActivity < QUIET_NANOS);
      if (waiting == 0) {
        busy.add(this);
      }
      waiting++;
      appending++;
      expected = Math.max(expected, Math.min(waiting, MAX_EXPECTED));
      lastActivity = now;
      active = true;
    }

    @Override
    public void requestAppended() {
      boolean complete;
      synchronized (this) {
        if (closed || appending == 0) {
          return;
        }
        appending--;
        complete = !stillSending();
      }
      if (complete) {
        wake.run();
      }
    }

    @Override
    public synchronized void requestAnswered() {
      if (closed || waiting == 0) {
        return;
      }
      waiting--;
      lastActivity = clock.getAsLong();
      if (waiting == 0) {
        busy.remove(this);
      }
    }

    @Override
    public void close() {
      boolean wasWaitedFor;
      synchronized (this) {
        wasWaitedFor = stillSending();
        closed = true;
        waiting = 0;
        appending = 0;
        busy.remove(this);
      }
      if (wasWaitedFor) {
        wake.run();
      }
    }

    synchronized boolean stillSending() {
      return waiting > 0 && (appending > 0 || (pipelined && waiting < expected));
    }

    synchronized void settle() {
      if (waiting > 0) {
        expected = waiting;
      }
    }
  }
}
