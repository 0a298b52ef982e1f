package io.kelp.seaweed;

import static io.kelp.seaweed.FilerTransactions.fenced;

import io.grpc.StatusRuntimeException;
import io.kelp.engine.store.Fence;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FilerError;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The attempts of one append at writing its new entry with a conditional filer transaction: what
 * each outcome means for the entry this store remembers, and when to give up.
 */
final class AppendAttempts {
  private final FilerClient filer;
  private final Function<ObjectTransactionRequest, ObjectTransactionResponse> send;
  private final EntryCache entries;
  private final String path;
  private final Duration retryFor;
  private final long deadline;
  private long backoffMs = 20;
  private Optional<Entry> known;
  private boolean ours;

  /**
   * @param send sends one attempt's transaction and returns the answer, throwing {@link
   *     StatusRuntimeException} as gRPC's blocking call does
   */
  AppendAttempts(
      FilerClient filer,
      Function<ObjectTransactionRequest, ObjectTransactionResponse> send,
      EntryCache entries,
      String path,
      Duration retryFor) {
    this.filer = filer;
    this.send = send;
    this.entries = entries;
    this.path = path;
    this.retryFor = retryFor;
    this.deadline = System.nanoTime() + retryFor.toNanos();
    this.known = entries.get(path);
  }

  /**
   * The entry the next attempt adds to: for the first attempt the one our last write left, when
   * this store remembers it; otherwise the filer's, looked up (then an earlier attempt of this
   * append may already be in it). Throws if the path is a directory.
   */
  Optional<Entry> current() throws IOException {
    ours = known.isPresent();
    Optional<Entry> current;
    if (ours) {
      current = known;
    } else {
      String[] p = Entries.split(path);
      current = filer.lookup(p[0], p[1]);
    }
    known = Optional.empty();
    if (current.isPresent() && current.get().getIsDirectory()) {
      throw new IOException("cannot append to " + path + ": it is a directory");
    }
    return current;
  }

  /**
   * Whether the last {@link #current()} came from the filer, so that an earlier attempt whose
   * answer was lost may be in it. Our own last entry cannot hold this append: it is forgotten after
   * any unknown outcome.
   */
  boolean mayHoldAnEarlierAttempt() {
    return !ours;
  }

  /**
   * Sends {@code request}, which writes {@code next}. Returns true once written (then {@code next}
   * is the entry remembered for the path), false when the entry must be read again before the next
   * attempt: the condition failed (another writer came first), or the outcome is unknown (after a
   * backoff; the earlier attempt may have landed). Throws once the fence is lost, on an error the
   * filer reports, or when the time to retry has run out.
   */
  boolean attempt(ObjectTransactionRequest request, Entry next, Fence fence) throws IOException {
    ObjectTransactionResponse response;
    try {
      response = send.apply(request);
    } catch (StatusRuntimeException e) {
      entries.forget(path);
      backoffMs = filer.backOff("append to " + path, e, deadline, backoffMs);
      return false;
    }
    if (response.getErrorCode() == FilerError.PRECONDITION_FAILED) {
      entries.forget(path);
      if (fence != null) {
        throw fenced(path, fence);
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "append to " + path + ": the object kept changing for " + retryFor.toSeconds() + "s");
      }
      return false;
    }
    if (!response.getError().isEmpty()) {
      entries.forget(path);
      throw new IOException(
          "append to " + path + " on filer " + filer.address() + ": " + response.getError());
    }
    entries.put(path, next);
    return true;
  }
}
