package io.kelp.engine.store;

/**
 * What a store hears about writers that run at once: a group commit cycle flushes its partitions in
 * parallel, each on an io thread of its own. A store whose writes wait on round trips it can share
 * (SeaweedFS sends the filer transactions of several objects in one request) can then hold a
 * writer's round trip until every writer it knows of is waiting, and send them all together,
 * instead of one by one. The calls are cheap and never block; a store that shares nothing ignores
 * them ({@link #NONE}).
 */
public interface ConcurrentWrites {
  /** Ignores everything. */
  ConcurrentWrites NONE =
      new ConcurrentWrites() {
        @Override
        public void expect(int writers) {}

        @Override
        public void started() {}

        @Override
        public void done() {}
      };

  /** {@code writers} writers are about to start, each on a thread of its own. */
  void expect(int writers);

  /** A writer starts on the calling thread; its store calls until {@link #done} belong to it. */
  void started();

  /** The writer on the calling thread has made its last store call. */
  void done();
}
