package io.kelp.gateway.api;

import io.kelp.engine.log.PartitionLog;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Waits until what partitions have acknowledged is written, for requests that must see every
 * acknowledged record: Kafka's leader counts an acks=1 record in its high watermark as soon as it
 * has answered the producer (one replica), while ours moves once the record is written, which data
 * nothing waits for may be held back for ({@code flush.lazy.ms}).
 */
public final class AppendedWrites {
  /**
   * Longest wait; a store that takes longer (being retried) gets the answer from what is written by
   * then, as a request that came a moment earlier would.
   */
  static final long MAX_WAIT_MS = 3_000;

  private AppendedWrites() {}

  /**
   * Completes (normally, even if a write fails) once every record appended to {@code logs} before
   * this call is written, or after {@link #MAX_WAIT_MS}. Logs with nothing unwritten cost nothing.
   */
  public static CompletableFuture<Void> await(Collection<PartitionLog> logs) {
    List<CompletableFuture<Void>> waits = new ArrayList<>();
    Map<PartitionLog, Boolean> seen = new IdentityHashMap<>();
    for (PartitionLog log : logs) {
      if (log != null
          && seen.put(log, Boolean.TRUE) == null
          && log.logEndOffset() > log.highWatermark()) {
        CompletableFuture<Void> written = log.appendedWritten();
        if (!written.isDone()) {
          waits.add(written);
        }
      }
    }
    if (waits.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]))
        .handle((ok, failed) -> (Void) null)
        .completeOnTimeout(null, MAX_WAIT_MS, TimeUnit.MILLISECONDS);
  }
}
