package io.kelp.engine.log;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The chunks of one partition appended but not yet written, oldest first. Appends add at the tail
 * (in offset order, under the log's append lock); the flusher, the only remover, takes from the
 * head. Thread-safe.
 */
final class PendingQueue {
  private final ArrayDeque<PendingChunk> chunks = new ArrayDeque<>();
  private long bytes;

  /** Queues {@code chunk}. */
  synchronized void add(PendingChunk chunk) {
    chunks.addLast(chunk);
    bytes += chunk.size();
  }

  /** The chunks queued now, oldest first; they stay queued until {@link #removeFirst}. */
  synchronized List<PendingChunk> snapshot() {
    return new ArrayList<>(chunks);
  }

  /** Removes the {@code n} oldest chunks, once written. */
  synchronized void removeFirst(int n) {
    for (int i = 0; i < n; i++) {
      int size = chunks.pollFirst().size();
      bytes -= size;
    }
  }

  /** Removes and returns every chunk. */
  synchronized List<PendingChunk> drain() {
    List<PendingChunk> all = new ArrayList<>(chunks);
    chunks.clear();
    bytes = 0;
    return all;
  }

  synchronized boolean isEmpty() {
    return chunks.isEmpty();
  }

  synchronized long bytes() {
    return bytes;
  }
}
