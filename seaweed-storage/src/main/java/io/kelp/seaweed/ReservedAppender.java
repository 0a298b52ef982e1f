package io.kelp.seaweed;

import static io.kelp.seaweed.Entries.hasChunk;
import static io.kelp.seaweed.Entries.split;
import static io.kelp.seaweed.FilerTransactions.transaction;

import com.google.protobuf.ByteString;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.kelp.seaweed.filer.FilerProto.ObjectMutation;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fenced appends of one chunk to file ids reserved ahead in the object's entry ({@link
 * Reservation}): an append returns once its upload succeeded, and one fenced filer transaction per
 * {@value #RESERVED_IDS} appends lists the chunks uploaded and records the next reservation, as
 * does the writer publishing the object ({@link #publish}). Until then the chunks are known to this
 * store alone: its reads add them ({@link #unlisted}, {@link #withUnlisted}). A claim of a
 * directory settles every reservation recorded in it ({@link #settle}). See the class comment of
 * {@link SeaweedObjectStore} for what this guarantees.
 */
final class ReservedAppender {
  /**
   * How many file ids a fenced writer reserves for an object at a time: one filer transaction per
   * that many appends.
   */
  static final int RESERVED_IDS = 32;

  /** Attempts at uploading to one id before it is settled with {@link VolumeClient#closeOff}. */
  private static final int UPLOAD_ATTEMPTS = 3;

  private static final Logger log = LoggerFactory.getLogger(ReservedAppender.class);

  private final FilerClient filer;
  private final TransactionBatcher batcher;
  private final VolumeClient volumes;
  private final ChunkUploader uploader;
  private final EntryCache entries;
  private final WriteTimings timings;
  private final Duration retryFor;
  private final String writer;

  /**
   * Reservations of the objects this store appends to under a fence, by directory, then by path: an
   * object's reservation is listed before another object of its directory gets one.
   */
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Reservation>> byDirectory =
      new ConcurrentHashMap<>();

  /**
   * Whether fenced appends go through reservations: not once an assignment came with a write token,
   * since closing an id off needs an unsigned write.
   */
  private volatile boolean reserving = true;

  ReservedAppender(
      FilerClient filer,
      TransactionBatcher batcher,
      VolumeClient volumes,
      ChunkUploader uploader,
      EntryCache entries,
      WriteTimings timings,
      Duration retryFor,
      String writer) {
    this.filer = filer;
    this.batcher = batcher;
    this.volumes = volumes;
    this.uploader = uploader;
    this.entries = entries;
    this.timings = timings;
    this.retryFor = retryFor;
    this.writer = writer;
  }

  /**
   * A fenced append of one chunk to the next id reserved for the object: returns once the upload
   * succeeded, the entry listing the chunk later. Returns false, having written nothing, when
   * reservations cannot be used (assignments come with write tokens); the caller then appends on
   * its own path, after {@link #listLeftOver}.
   */
  boolean append(String path, String[] p, ByteBuf data, Fence fence) throws IOException {
    if (!reserving) {
      return false;
    }
    long start = System.nanoTime();
    long deadline = start + retryFor.toNanos();
    long backoffMs = 20;
    while (true) {
      Reservation r = get(p[0], path);
      if (r == null || !r.usable()) {
        try {
          r = reserveAfter(path, p, r, fence);
        } catch (FencedException e) {
          throw e;
        } catch (IOException e) {
          // No volume to assign from yet (a volume server restarting), or the filer gone past
          // its own retries: try again while the append may still wait.
          if (System.nanoTime() > deadline) {
            throw e;
          }
          log.warn("reserving file ids for {} failed, retrying: {}", path, e.toString());
          pause(backoffMs);
          backoffMs = Math.min(backoffMs * 2, 1000);
          continue;
        }
        if (r == null) {
          return false;
        }
      }
      FileIdPool.FileId id = r.take();
      long uploadStart = System.nanoTime();
      IOException failure = uploadAttempts(id, data);
      if (failure == null) {
        r.landed(id, data.readableBytes());
        timings.upload(System.nanoTime() - uploadStart, data.readableBytes());
        return true;
      }
      // Whether the id holds the bytes is settled for good before it counts either way: a
      // takeover settles it the same way, so the two cannot disagree.
      VolumeClient.KeyState state = null;
      try {
        state = volumes.closeOff(id.url(), id.fileId());
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
      if (state == VolumeClient.KeyState.TAKEN) {
        r.landed(id, data.readableBytes());
        timings.upload(System.nanoTime() - uploadStart, data.readableBytes());
        return true;
      }
      // Closed, or not known: the id is never used again, nor any later id of the reservation;
      // if its upload lands after all, no entry lists it and it was never acknowledged.
      r.spend();
      log.warn(
          "upload of a chunk of {} to {} failed, reserving anew: {}", path, id, failure.toString());
      if (System.nanoTime() > deadline) {
        throw failure;
      }
      pause(backoffMs);
      backoffMs = Math.min(backoffMs * 2, 1000);
    }
  }

  /** Uploads to {@code id}, a few times with short pauses between; null once it succeeded. */
  private IOException uploadAttempts(FileIdPool.FileId id, ByteBuf data) throws IOException {
    IOException failure = null;
    for (int attempt = 0; attempt < UPLOAD_ATTEMPTS; attempt++) {
      if (attempt > 0) {
        pause(20L << (attempt - 1));
      }
      try {
        uploader.uploadOnce(id, data);
        return null;
      } catch (IOException e) {
        if (failure != null) {
          e.addSuppressed(failure);
        }
        failure = e;
      }
    }
    return failure;
  }

  /**
   * Before an append of {@code path} on another path than {@link #append}: lists the chunks its
   * reservation holds, if it has one, and drops it.
   */
  void listLeftOver(String path, String[] p, Fence fence) throws IOException {
    Map<String, Reservation> dir = byDirectory.get(p[0]);
    Reservation left = dir == null ? null : dir.remove(path);
    if (left != null) {
      listUploaded(path, p, left, fence, null);
    }
  }

  /**
   * Lists the chunks uploaded to {@code path}'s reservation and drops the reservation, in one
   * fenced transaction, so that readers that do not claim (SeaweedFS's own tools) see every append;
   * the next append reserves anew. Nothing to do when no chunk is unlisted. The caller does not
   * append to {@code path} meanwhile.
   */
  void publish(String path, String[] p, Fence fence) throws IOException {
    Map<String, Reservation> dir = byDirectory.get(p[0]);
    Reservation r = dir == null ? null : dir.get(path);
    if (r == null || r.uploaded().isEmpty()) {
      return;
    }
    listUploaded(path, p, r, fence, null);
    dir.remove(path, r);
  }

  private Reservation get(String directory, String path) {
    Map<String, Reservation> dir = byDirectory.get(directory);
    return dir == null ? null : dir.get(path);
  }

  /**
   * Lists the chunks uploaded to {@code old} (if any) and records a new reservation for {@code
   * path}, in one fenced transaction; first lists what other objects of the directory still have
   * unlisted. Returns null, having listed everything, if the new ids come with a write token.
   */
  private Reservation reserveAfter(String path, String[] p, Reservation old, Fence fence)
      throws IOException {
    ConcurrentHashMap<String, Reservation> dir =
        byDirectory.computeIfAbsent(p[0], k -> new ConcurrentHashMap<>());
    for (Map.Entry<String, Reservation> other : dir.entrySet()) {
      String otherPath = other.getKey();
      if (!otherPath.equals(path)) {
        listUploaded(otherPath, split(otherPath), other.getValue(), fence, null);
        dir.remove(otherPath, other.getValue());
      }
    }
    AssignVolumeResponse assigned = uploader.assign(p[0], RESERVED_IDS);
    if (!assigned.getAuth().isEmpty()) {
      reserving = false;
      listUploaded(path, p, old, fence, null);
      dir.remove(path);
      return null;
    }
    Reservation fresh = Reservation.of(assigned);
    listUploaded(path, p, old, fence, fresh);
    dir.put(path, fresh);
    return fresh;
  }

  /**
   * Lists the chunks uploaded to {@code done} (null: none) in {@code path}'s entry and records
   * {@code next} as its reservation (null: drops it), in one fenced transaction.
   */
  private void listUploaded(
      String path, String[] p, Reservation done, Fence fence, Reservation next) throws IOException {
    List<FileChunk> added = done == null ? List.of() : done.uploaded();
    ByteString recorded = next == null ? null : next.encoded();
    long start = System.nanoTime();
    AppendAttempts attempts = new AppendAttempts(filer, batcher::transact, entries, path, retryFor);
    try {
      while (true) {
        Optional<Entry> current = attempts.current();
        // The chunks of one reservation are listed together, and a file id is listed once: if
        // the first is there, an earlier attempt (of this call or of an earlier one whose
        // outcome was unknown) listed them all.
        List<FileChunk> toAdd =
            current.isPresent() && !added.isEmpty() && hasChunk(current.get(), added.get(0))
                ? List.of()
                : added;
        if (toAdd.isEmpty()
            && current.isPresent()
            && Objects.equals(current.get().getExtendedMap().get(Reservation.KEY), recorded)) {
          entries.put(path, current.get());
          return;
        }
        Entry.Builder b = Entries.appended(uploader, path, current, toAdd, null).toBuilder();
        if (recorded == null) {
          b.removeExtended(Reservation.KEY);
        } else {
          b.putExtended(Reservation.KEY, recorded);
        }
        Entry entry = b.build();
        ObjectMutation put = FilerTransactions.put(p[0], entry);
        if (attempts.attempt(transaction(path, fence, writer, put), entry, fence)) {
          return;
        }
      }
    } finally {
      timings.commit(System.nanoTime() - start);
    }
  }

  /**
   * After a claim: for every object of {@code directory} whose entry records a reservation, settles
   * the reserved ids in order ({@link VolumeClient#closeOff}) and lists those that hold chunks, up
   * to the first that does not; the writer that made the reservation can then upload to none of
   * them.
   */
  void settle(String directory, Fence fence) throws IOException {
    List<Entry> children;
    try {
      children = filer.list(directory);
    } catch (FilerClient.FilerException e) {
      if (FilerClient.isNotFound(e)) {
        return;
      }
      throw e;
    }
    for (Entry e : children) {
      Reservation r = Reservation.recordedIn(e);
      if (r == null) {
        continue;
      }
      String path = FilerClient.join(directory, e.getName());
      long deadline = System.nanoTime() + retryFor.toNanos();
      for (int i = 0; i < r.count; i++) {
        FileIdPool.FileId id = r.take();
        if (hasChunk(e, ChunkUploader.chunk(id, 0, 0))) {
          continue;
        }
        VolumeClient.KeyState state = closeOffRetrying(r.url, id.fileId(), deadline);
        if (state == VolumeClient.KeyState.CLOSED) {
          break;
        }
        long size = volumes.size(r.url, id.fileId());
        r.landed(id, (int) size);
      }
      log.info(
          "{}: {} chunk(s) uploaded by the previous writer listed from its reservation {}",
          path,
          r.uploaded().size(),
          r.fileId);
      listUploaded(path, split(path), r, fence, null);
    }
  }

  private VolumeClient.KeyState closeOffRetrying(String url, String fileId, long deadline)
      throws IOException {
    long backoffMs = 20;
    while (true) {
      try {
        return volumes.closeOff(url, fileId);
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "cannot settle file id " + fileId + " on volume server " + url + " to take over", e);
        }
        pause(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 1000);
      }
    }
  }

  /**
   * The chunks of {@code path} this store uploaded and has not listed yet, or null. A reader takes
   * this before it looks at the entry: a reservation replaced after that look would miss chunks.
   */
  Reservation unlisted(String path) {
    return get(split(path)[0], path);
  }

  /** {@code entry} as this store sees it: with the chunks of {@code r} (from {@link #unlisted}). */
  static Entry withUnlisted(Entry entry, Reservation r) {
    return r == null ? entry : r.addTo(entry);
  }

  /** Forgets the reservation of {@code path}, replaced by a put: its ids are never used. */
  void forget(String path) {
    Map<String, Reservation> dir = byDirectory.get(split(path)[0]);
    if (dir != null) {
      dir.remove(path);
    }
  }

  /** Forgets the reservations of {@code path} and of everything under it. */
  void forgetTree(String path) {
    byDirectory.keySet().removeIf(d -> d.equals(path) || d.startsWith(path + "/"));
    if (!path.equals("/")) {
      forget(path);
    }
  }

  /**
   * At a clean close, once nothing appends any more: lists the chunks this store uploaded and has
   * not listed yet, each object in one fenced transaction that also drops its reservation, so that
   * the filer shows every object whole without waiting for the next owner's claim. {@code epochs}
   * gives the epoch this store holds each directory with; a directory it no longer holds is left to
   * its owner. Stops once {@code stop} says so (the close's time is up); whatever is left then, or
   * fails, is listed by the next owner's claim, as after a crash. Returns how many objects were
   * listed.
   */
  int listAll(Map<String, Long> epochs, BooleanSupplier stop) {
    int listed = 0;
    for (Map.Entry<String, ConcurrentHashMap<String, Reservation>> dir : byDirectory.entrySet()) {
      Long epoch = epochs.get(dir.getKey());
      if (epoch == null) {
        continue;
      }
      for (Map.Entry<String, Reservation> object : dir.getValue().entrySet()) {
        if (stop.getAsBoolean()) {
          return listed;
        }
        String path = object.getKey();
        Reservation r = object.getValue();
        if (r.uploaded().isEmpty()) {
          continue;
        }
        try {
          listUploaded(path, split(path), r, new Fence(dir.getKey(), epoch), null);
          dir.getValue().remove(path, r);
          listed++;
        } catch (IOException | RuntimeException e) {
          if (!stop.getAsBoolean()) {
            log.warn(
                "{}: its last chunks could not be listed at close; the next owner's claim lists"
                    + " them: {}",
                path,
                e.toString());
          }
        }
      }
    }
    return listed;
  }

  /**
   * Forgets every reservation. Chunks uploaded and not listed yet stay so: the next owner's claim
   * lists them.
   */
  void clear() {
    byDirectory.clear();
  }

  /** For tests: whether fenced appends use reservations. */
  void use(boolean on) {
    reserving = on;
  }

  static void pause(long ms) throws IOException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while appending");
    }
  }
}
