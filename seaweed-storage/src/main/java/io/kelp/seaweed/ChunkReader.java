package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the chunks of an object from the volume servers for {@link SeaweedObjectStore#read}: the
 * chunks one read needs are fetched in parallel, whole when small enough for the {@link ChunkCache}
 * (so the next read that starts inside one is served from memory), and a fetch that fails is
 * retried, on every server that holds the chunk, for up to {@code retryFor}.
 */
final class ChunkReader {
  private static final Logger log = LoggerFactory.getLogger(ChunkReader.class);
  private final FilerClient filer;
  private final VolumeClient volumes;
  private final ChunkCache chunkCache;
  private final Duration retryFor;

  ChunkReader(FilerClient filer, VolumeClient volumes, ChunkCache chunkCache, Duration retryFor) {
    this.filer = filer;
    this.volumes = volumes;
    this.chunkCache = chunkCache;
    this.retryFor = retryFor;
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
   * volume servers all at once; a chunk small enough for the cache is fetched whole and kept, so
   * the next read that starts inside it is served from memory. Bytes no chunk covers read as zeros.
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
    List<CompletableFuture<ByteBuf>> fetches = new ArrayList<>(pieces.size());
    boolean[] fromCache = new boolean[pieces.size()];
    for (int i = 0; i < pieces.size(); i++) {
      Piece piece = pieces.get(i);
      ByteBuf cached = piece.whole ? chunkCache.get(piece.chunk.getFileId()) : null;
      fromCache[i] = cached != null;
      fetches.add(cached != null ? CompletableFuture.completedFuture(cached) : fetch(piece));
    }
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

  /** Starts fetching a piece (or its whole chunk) from the first volume server that has it. */
  private CompletableFuture<ByteBuf> fetch(Piece piece) {
    String fileId = piece.chunk.getFileId();
    List<String> urls;
    try {
      urls = filer.volumeUrls(fileId.substring(0, fileId.indexOf(',')));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (urls.isEmpty()) {
      return CompletableFuture.failedFuture(new IOException("no location for " + fileId));
    }
    if (piece.whole) {
      return volumes.readAsync(urls.get(0), fileId, 0, (int) piece.chunk.getSize());
    }
    return volumes.readAsync(
        urls.get(0), fileId, piece.from - piece.chunk.getOffset(), (int) (piece.to - piece.from));
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
    while (true) {
      IOException last = null;
      for (String url : filer.volumeUrls(volumeId)) {
        try {
          return volumes.read(url, fileId, offset, length);
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
      FilerClient.sleep(backoffMs);
      backoffMs = Math.min(1000, backoffMs * 2);
    }
  }

  /** Releases the chunks kept for reads. */
  void close() {
    chunkCache.clear();
  }
}
