package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the chunks of an object from the volume servers for {@link SeaweedObjectStore#read}: the
 * chunks one read needs are fetched with pipelined requests, one connection per volume server,
 * whole when small enough for the {@link ChunkCache} (so the next read that starts inside one is
 * served from memory), and a fetch that fails is retried, on every server that holds the chunk, for
 * up to {@code retryFor} or {@link #MAX_READ_RETRY}, whichever is shorter. While reads keep
 * failing, a line every 10 s says so.
 */
final class ChunkReader {
  private static final Logger log = LoggerFactory.getLogger(ChunkReader.class);

  /**
   * Least time between two log lines about reads that fail and are retried, or that succeed after
   * failing: while a volume server is away every read of its chunks fails, and one line in that
   * time says so.
   */
  private static final long LOG_QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * Longest time a read retries, whatever the store's own retries: its callers try again on their
   * own (a consumer after the fetch's error, a partition or group that could not be opened on the
   * broker's timer), and a fetch waiting on a volume server that is away holds one of the broker's
   * threads for fetches meanwhile, which other consumers' reads need too.
   */
  static final Duration MAX_READ_RETRY = Duration.ofSeconds(5);

  private final FilerClient filer;
  private final VolumeClient volumes;
  private final ChunkCache chunkCache;
  private final Duration retryFor;

  /** System.nanoTime() before which no line about failing reads is logged. */
  private final AtomicLong failingQuietUntil = new AtomicLong(System.nanoTime());

  /** System.nanoTime() before which no line about reads that succeeded after failing is logged. */
  private final AtomicLong recoveredQuietUntil = new AtomicLong(System.nanoTime());

  /** Reads that failed and were retried since the last line that said so. */
  private final AtomicLong unreportedFailures = new AtomicLong();

  ChunkReader(FilerClient filer, VolumeClient volumes, ChunkCache chunkCache, Duration retryFor) {
    this.filer = filer;
    this.volumes = volumes;
    this.chunkCache = chunkCache;
    this.retryFor = retryFor.compareTo(MAX_READ_RETRY) > 0 ? MAX_READ_RETRY : retryFor;
  }

  /** A chunk's part that a read needs: [from, to) in the object. */
  private record Piece(FileChunk chunk, long from, long to, boolean whole) {}

  /**
   * The object's bytes [{@code position}, {@code position + length}) as a buffer the caller
   * releases, built from the chunks' own buffers (a composite of slices when the range spans
   * several chunks; only a part shorter than half its chunk is copied, see {@link #part}). It holds
   * all of them, unless the read reaches {@code pending}, the chunk whose upload ran alongside the
   * transaction that listed it (see {@link SeaweedObjectStore}), and its volume server has no such
   * chunk: that upload never ended, its append never returned, and the object is read as ending
   * where that chunk starts. Cached chunks come from memory, the others are fetched from their
   * volume servers with pipelined requests ({@link #fetchAll}); a chunk small enough for the cache
   * is fetched whole and kept, so the next read that starts inside it is served from memory. Bytes
   * no chunk covers read as zeros.
   */
  ByteBuf read(
      String path,
      List<FileChunk> chunks,
      long position,
      int length,
      String pending,
      ByteBufAllocator alloc)
      throws IOException {
    long end = position + length;
    List<Piece> pieces = new ArrayList<>();
    for (FileChunk c : chunks) {
      long from = Math.max(position, c.getOffset());
      long to = Math.min(end, c.getOffset() + c.getSize());
      if (from >= to) {
        continue;
      }
      if (c.getIsChunkManifest() || c.getIsCompressed()) {
        throw new IOException(
            path + " has a chunk manifest or compressed chunk, which this store does not write");
      }
      pieces.add(new Piece(c, from, to, chunkCache.admits(c.getSize())));
    }
    boolean[] fromCache = new boolean[pieces.size()];
    List<CompletableFuture<ByteBuf>> fetches = fetchAll(pieces, fromCache);
    List<ByteBuf> parts = new ArrayList<>(pieces.size() + 1);
    long at = position;
    int done = 0;
    try {
      for (; done < pieces.size(); done++) {
        Piece piece = pieces.get(done);
        long chunkStart = piece.whole ? 0 : piece.from - piece.chunk.getOffset();
        int chunkLength = (int) (piece.whole ? piece.chunk.getSize() : piece.to - piece.from);
        ByteBuf bytes;
        boolean isPending = piece.chunk.getFileId().equals(pending);
        try {
          bytes = fetches.get(done).join();
        } catch (CompletionException e) {
          // The first volume server failed: fall back to the retrying read.
          try {
            bytes = readChunk(path, piece.chunk, chunkStart, chunkLength, isPending);
          } catch (VolumeClient.ChunkNotFoundException missing) {
            log.warn(
                "{}: its last chunk {} was never stored (the append that listed it did not end);"
                    + " reading the object as ending at byte {}",
                path,
                pending,
                piece.chunk.getOffset());
            if (piece.from > at) {
              parts.add(zeros(alloc, (int) (piece.from - at)));
            }
            return join(parts, alloc);
          }
        }
        try {
          if (piece.whole && !fromCache[done]) {
            chunkCache.put(piece.chunk.getFileId(), bytes);
          }
          if (piece.from > at) {
            parts.add(zeros(alloc, (int) (piece.from - at)));
          }
          int skip = (int) (piece.from - piece.chunk.getOffset() - chunkStart);
          parts.add(part(bytes, bytes.readerIndex() + skip, (int) (piece.to - piece.from), alloc));
          at = piece.to;
        } finally {
          bytes.release();
        }
      }
      if (end > at) {
        parts.add(zeros(alloc, (int) (end - at)));
      }
      return join(parts, alloc);
    } catch (IOException | RuntimeException e) {
      parts.forEach(ByteBuf::release);
      throw e;
    } finally {
      // After a failure, the fetches not reached yet still hold buffers once they end.
      for (int i = done + 1; i < fetches.size(); i++) {
        fetches.get(i).thenAccept(ByteBuf::release);
      }
    }
  }

  /**
   * The bytes of a chunk a read needs: a slice of the chunk's buffer, or a copy when they are less
   * than half of it, so that what a reader keeps (the tail cache counts the bytes it was given)
   * never holds much more memory than it counts.
   */
  private static ByteBuf part(ByteBuf chunk, int index, int length, ByteBufAllocator alloc) {
    if (length >= chunk.readableBytes() / 2) {
      return chunk.retainedSlice(index, length);
    }
    return alloc.buffer(length).writeBytes(chunk, index, length);
  }

  private static ByteBuf zeros(ByteBufAllocator alloc, int n) {
    return alloc.buffer(n).writeZero(n);
  }

  /** The parts as one buffer (taking over their references). */
  private static ByteBuf join(List<ByteBuf> parts, ByteBufAllocator alloc) {
    if (parts.isEmpty()) {
      return alloc.buffer(0);
    }
    if (parts.size() == 1) {
      return parts.get(0);
    }
    return alloc.compositeBuffer(parts.size()).addComponents(true, parts);
  }

  /**
   * Starts getting every piece (or its whole chunk): from the chunk cache, else from the first
   * volume server that holds its chunk. The pieces of one volume server are read on one connection
   * with their requests pipelined: those of the first server on the caller's thread, any other
   * server's on a read thread meanwhile. Marks in {@code fromCache} the pieces the cache had.
   */
  private List<CompletableFuture<ByteBuf>> fetchAll(List<Piece> pieces, boolean[] fromCache) {
    List<CompletableFuture<ByteBuf>> fetches = new ArrayList<>(pieces.size());
    Map<String, List<Integer>> byServer = new LinkedHashMap<>();
    for (int i = 0; i < pieces.size(); i++) {
      Piece piece = pieces.get(i);
      ByteBuf cached = piece.whole ? chunkCache.get(piece.chunk.getFileId()) : null;
      fromCache[i] = cached != null;
      fetches.add(cached != null ? CompletableFuture.completedFuture(cached) : null);
      if (cached == null) {
        String fileId = piece.chunk.getFileId();
        try {
          List<String> urls = filer.volumeUrls(fileId.substring(0, fileId.indexOf(',')));
          if (urls.isEmpty()) {
            throw new IOException("no location for " + fileId);
          }
          byServer.computeIfAbsent(urls.get(0), u -> new ArrayList<>()).add(i);
        } catch (IOException e) {
          fetches.set(i, CompletableFuture.failedFuture(e));
        }
      }
    }
    Map.Entry<String, List<Integer>> onCaller = null;
    for (Map.Entry<String, List<Integer>> server : byServer.entrySet()) {
      if (onCaller == null) {
        onCaller = server;
      } else {
        place(
            fetches,
            server.getValue(),
            volumes.readAllAsync(server.getKey(), ranges(pieces, server.getValue())));
      }
    }
    if (onCaller != null) {
      place(
          fetches,
          onCaller.getValue(),
          volumes.readAll(onCaller.getKey(), ranges(pieces, onCaller.getValue())));
    }
    return fetches;
  }

  /** What the pieces at {@code indexes} ask of their chunks. */
  private static List<VolumeClient.Range> ranges(List<Piece> pieces, List<Integer> indexes) {
    List<VolumeClient.Range> ranges = new ArrayList<>(indexes.size());
    for (int i : indexes) {
      Piece piece = pieces.get(i);
      String fileId = piece.chunk.getFileId();
      ranges.add(
          piece.whole
              ? new VolumeClient.Range(fileId, 0, (int) piece.chunk.getSize())
              : new VolumeClient.Range(
                  fileId, piece.from - piece.chunk.getOffset(), (int) (piece.to - piece.from)));
    }
    return ranges;
  }

  private static void place(
      List<CompletableFuture<ByteBuf>> fetches,
      List<Integer> indexes,
      List<CompletableFuture<ByteBuf>> results) {
    for (int k = 0; k < indexes.size(); k++) {
      fetches.set(indexes.get(k), results.get(k));
    }
  }

  /**
   * Reads part of a chunk, retrying on every server that holds it for up to {@code retryFor}. A
   * {@code pending} chunk that a volume server says it does not have is asked for again until its
   * writer can no longer count its upload as done ({@link
   * SeaweedObjectStore#pendingSettledMillis}), then given up on with {@link
   * VolumeClient.ChunkNotFoundException}.
   */
  private ByteBuf readChunk(String path, FileChunk chunk, long offset, int length, boolean pending)
      throws IOException {
    String fileId = chunk.getFileId();
    String volumeId = fileId.substring(0, fileId.indexOf(','));
    long deadline = System.nanoTime() + retryFor.toNanos();
    if (pending) {
      // However short the store's retries, a missing pending chunk is asked for until it settles.
      long untilSettled =
          Math.min(
              SeaweedObjectStore.PENDING_SETTLE_MS,
              SeaweedObjectStore.pendingSettledMillis(chunk) - System.currentTimeMillis());
      deadline = Math.max(deadline, System.nanoTime() + (untilSettled + 1_000) * 1_000_000);
    }
    long backoffMs = 20;
    long firstFailure = 0;
    while (true) {
      IOException last = null;
      List<String> urls = List.of();
      try {
        // Once the volume server has been away a while the master no longer knows the volume,
        // and the lookup fails: a failed attempt like the others, not the end of the read.
        urls = filer.volumeUrls(volumeId);
      } catch (IOException e) {
        last = e;
      }
      for (String url : urls) {
        try {
          ByteBuf bytes = volumes.read(url, fileId, offset, length);
          if (firstFailure != 0) {
            recovered(path, fileId, url, firstFailure);
          }
          return bytes;
        } catch (VolumeClient.ChunkNotFoundException e) {
          if (pending
              && System.currentTimeMillis() >= SeaweedObjectStore.pendingSettledMillis(chunk)) {
            throw e;
          }
          last = e;
        } catch (IOException e) {
          last = e;
        }
      }
      filer.forgetVolume(volumeId);
      if (System.nanoTime() + backoffMs * 1_000_000 > deadline) {
        throw new IOException("read of " + path + " failed", last);
      }
      if (firstFailure == 0) {
        firstFailure = System.nanoTime();
        failing(path, fileId, urls, last, deadline);
      }
      FilerClient.sleep(backoffMs);
      backoffMs = Math.min(1000, backoffMs * 2);
    }
  }

  /**
   * A read of {@code fileId} failed on every volume server that holds it and is retried: logged
   * once per {@link #LOG_QUIET_NANOS}, with how many such reads there were since the last line.
   */
  private void failing(
      String path, String fileId, List<String> urls, IOException cause, long deadline) {
    long failures = unreportedFailures.incrementAndGet();
    if (!quietOver(failingQuietUntil)) {
      return;
    }
    unreportedFailures.addAndGet(-failures);
    log.warn(
        "{}: reading chunk {} from volume server {} failed, retrying for up to {} s ({} read(s)"
            + " failing since the last such line): {}",
        path,
        fileId,
        urls.isEmpty() ? "(none known)" : String.join(", ", urls),
        Math.max(0, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime())),
        failures,
        cause == null ? "no volume server holds it" : cause.toString());
  }

  /** A read that had failed succeeded: logged once per {@link #LOG_QUIET_NANOS}. */
  private void recovered(String path, String fileId, String url, long firstFailure) {
    if (quietOver(recoveredQuietUntil)) {
      log.info(
          "{}: chunk {} read from volume server {} after {} ms of failed attempts",
          path,
          fileId,
          url,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstFailure));
    }
  }

  /** Whether {@code quietUntil} has passed; if so, it moves {@link #LOG_QUIET_NANOS} ahead. */
  private static boolean quietOver(AtomicLong quietUntil) {
    long now = System.nanoTime();
    long until = quietUntil.get();
    return now - until >= 0 && quietUntil.compareAndSet(until, now + LOG_QUIET_NANOS);
  }

  /** Releases the chunks kept for reads. */
  void close() {
    chunkCache.clear();
  }
}
