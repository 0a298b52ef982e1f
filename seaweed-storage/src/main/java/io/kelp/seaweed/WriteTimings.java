package io.kelp.seaweed;

import java.util.concurrent.atomic.LongAdder;

/**
 * Where the store's write time goes, for metrics: chunk uploads to volume servers (assignment
 * included) and the filer transactions that add chunks to entries. Counts and total times only
 * grow.
 */
public final class WriteTimings {
  private final LongAdder uploads = new LongAdder();
  private final LongAdder uploadNanos = new LongAdder();
  private final LongAdder uploadBytes = new LongAdder();
  private final LongAdder commits = new LongAdder();
  private final LongAdder commitNanos = new LongAdder();

  void upload(long nanos, long bytes) {
    uploads.increment();
    uploadNanos.add(nanos);
    uploadBytes.add(bytes);
  }

  void commit(long nanos) {
    commits.increment();
    commitNanos.add(nanos);
  }

  /** Appends and puts whose bytes went to volume servers. */
  public long uploads() {
    return uploads.sum();
  }

  public long uploadNanos() {
    return uploadNanos.sum();
  }

  public long uploadBytes() {
    return uploadBytes.sum();
  }

  /** Filer transactions of appends and puts, retries included in their time. */
  public long commits() {
    return commits.sum();
  }

  public long commitNanos() {
    return commitNanos.sum();
  }
}
