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

  /** The chunks, and their bytes, that the running write took; 0 between writes. */
  private int taken;

  private long takenBytes;

  /** Most chunks seen queued at once lately: how many appends the producers keep in flight. */
  private int expected = 1;

  /** When the oldest chunk the running write did not take was queued (System.nanoTime()). */
  private long firstUntakenNanos;

  /** Since when the queue has been empty, and how long it had been when its latest chunk came. */
  private long emptySinceNanos = System.nanoTime();

  private long quietNanos = Long.MAX_VALUE;

  /** A write ended without writing all it took: the next flush goes without gathering. */
  private boolean leftOver;

  /**
   * Queues {@code chunk}; true when, with it, as many chunks wait as were expected: a flush that
   * gathers them should start now.
   */
  synchronized boolean add(PendingChunk chunk) {
    if (chunks.isEmpty()) {
      quietNanos = System.nanoTime() - emptySinceNanos;
    }
    chunks.addLast(chunk);
    bytes += chunk.size();
    int untaken = chunks.size() - taken;
    if (untaken == 1) {
      firstUntakenNanos = System.nanoTime();
    }
    expected = Math.max(expected, Math.min(chunks.size(), MAX_EXPECTED));
    long untakenBytes = bytes - takenBytes;
    return untaken == expected
        || (untakenBytes >= GATHER_BYTES && untakenBytes - chunk.size() < GATHER_BYTES);
  }

  /**
   * How long the queue must have been empty before a chunk for the flush not to wait for others
   * (unless the wait is shorter): a producer with requests held back by the previous write sends
   * them as soon as it is answered, well within this; one that sends at a lower rate than the store
   * writes (say, each linger.ms) does not, and its appends would otherwise wait for one another.
   */
  static final long QUIET_NANOS = 1_000_000;

  /** Most appends a flush waits for. */
  static final int MAX_EXPECTED = 64;

  /** Bytes waiting past which a flush does not wait for more appends. */
  static final long GATHER_BYTES = 1 << 20;

  /**
   * 0 when a flush should start now, else the System.nanoTime() from which it should: once as many
   * chunks wait as the producers lately kept in flight, or {@link #GATHER_BYTES} wait, or the
   * oldest has waited {@code waitNanos}. A flush started by that wait expects as many chunks as it
   * found from then on, and so does one whose chunks came after the queue had been empty for {@link
   * #QUIET_NANOS} (or the wait, if shorter): producers that went quiet, or send less often than the
   * store writes, are not waited for.
   */
  synchronized long gatherDue(long now, long waitNanos) {
    int untaken = chunks.size() - taken;
    if (leftOver || untaken == 0 || untaken >= expected || bytes - takenBytes >= GATHER_BYTES) {
      return 0;
    }
    long due = firstUntakenNanos + waitNanos;
    if (now - due >= 0 || quietNanos >= Math.min(waitNanos, QUIET_NANOS)) {
      expected = untaken;
      return 0;
    }
    return due;
  }

  /** The chunks queued now, oldest first; they stay queued until {@link #removeFirst}. */
  synchronized List<PendingChunk> snapshot() {
    leftOver = false;
    quietNanos = 0; // what comes during this write comes with the queue not empty
    taken = chunks.size();
    takenBytes = bytes;
    return new ArrayList<>(chunks);
  }

  /** The running write ended: what it did not remove waits for the next one. */
  synchronized void endWrite() {
    leftOver = taken > 0;
    taken = 0;
    takenBytes = 0;
  }

  /** Removes the {@code n} oldest chunks, once written. */
  synchronized void removeFirst(int n) {
    for (int i = 0; i < n; i++) {
      int size = chunks.pollFirst().size();
      bytes -= size;
      taken--;
      takenBytes -= size;
    }
    if (chunks.isEmpty()) {
      emptySinceNanos = System.nanoTime();
    }
  }

  /** Removes and returns every chunk. */
  synchronized List<PendingChunk> drain() {
    List<PendingChunk> all = new ArrayList<>(chunks);
    chunks.clear();
    emptySinceNanos = System.nanoTime();
    bytes = 0;
    leftOver = false;
    taken = 0;
    takenBytes = 0;
    return all;
  }

  synchronized boolean isEmpty() {
    return chunks.isEmpty();
  }

  synchronized long bytes() {
    return bytes;
  }
}
