package io.kelp.engine.log;

/**
 * One client connection's produce requests that wait for their appends to be durable (acks=all), as
 * the group-commit flusher sees them. A client keeps a bounded number of requests in flight on a
 * connection (the Java client five): once that many wait for a write, it cannot send more until
 * they are answered, so waiting for more of its appends before a write would only add latency;
 * while fewer wait and it is still sending, its next request is worth waiting for, to write them
 * together. See {@link ProduceConnections}.
 *
 * <p>Calls for one connection come from its network thread (appended, closed) and from whichever
 * thread answers a request; implementations are thread-safe.
 */
public interface ProduceConnection {
  /** A connection that tells the flusher nothing: its requests are never waited for. */
  ProduceConnection NONE =
      new ProduceConnection() {
        @Override
        public void requestArrived() {}

        @Override
        public void requestAppended() {}

        @Override
        public void requestAnswered() {}

        @Override
        public void close() {}
      };

  /**
   * A request whose answer will wait for its appends to be durable is about to queue them; a cycle
   * does not start without them.
   */
  void requestArrived();

  /** The appends of a request counted by {@link #requestArrived} are queued. */
  void requestAppended();

  /**
   * A request counted by {@link #requestArrived} was answered: durable, failed, timed out, or with
   * nothing to wait for.
   */
  void requestAnswered();

  /** The connection closed: its requests are no longer waited for. */
  void close();
}
