package io.kelp.seaweed;

import static io.kelp.seaweed.Entries.chunkIndex;
import static io.kelp.seaweed.Entries.hasChunk;
import static io.kelp.seaweed.FilerTransactions.chunksEqual;
import static io.kelp.seaweed.FilerTransactions.transaction;

import io.kelp.engine.store.Fence;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.kelp.seaweed.filer.FilerProto.ObjectMutation;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.WriteCondition;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The appends of {@link SeaweedObjectStore} that upload chunks to fresh file ids and then list them
 * in the object's entry: unfenced appends and those too large for one chunk ({@link
 * #uploadThenList}), and fenced appends of one chunk when no reservation can take them ({@link
 * #appendWhileUploading}: the upload runs alongside the filer transaction, the chunk recorded as
 * pending until it is known stored). Appends to reserved file ids are {@link ReservedAppender}'s,
 * small unfenced ones {@link InlineAppender}'s.
 */
final class ChunkAppender {
  private static final Logger log = LoggerFactory.getLogger(ChunkAppender.class);

  private final FilerClient filer;
  private final TransactionBatcher batcher;
  private final ChunkUploader uploader;
  private final EntryCache entries;
  private final WriteTimings timings;
  private final Duration retryFor;
  private final String writer;

  ChunkAppender(
      FilerClient filer,
      TransactionBatcher batcher,
      ChunkUploader uploader,
      EntryCache entries,
      WriteTimings timings,
      Duration retryFor,
      String writer) {
    this.filer = filer;
    this.batcher = batcher;
    this.uploader = uploader;
    this.entries = entries;
    this.timings = timings;
    this.retryFor = retryFor;
    this.writer = writer;
  }

  /** Uploads {@code data} as chunks of fresh ids, then adds them to the entry. */
  void uploadThenList(String path, String[] p, ByteBuf data, Fence fence) throws IOException {
    long start = System.nanoTime();
    List<FileChunk> added = uploader.upload(path, data);
    long uploaded = System.nanoTime();
    timings.upload(uploaded - start, data.readableBytes());
    try {
      appendEntry(path, p, added, fence, null);
    } finally {
      timings.commit(System.nanoTime() - uploaded);
    }
  }

  /**
   * A fenced append of one chunk, its upload and its filer transaction at once (see Writes in
   * {@link SeaweedObjectStore}). Returns once both have succeeded; if the upload failed, once the
   * bytes are stored anew and the entry lists them instead. Both run on the calling thread: the
   * upload once the transaction's request is sent and before its answer is read (or, if the
   * transaction failed first, after it).
   */
  void appendWhileUploading(String path, String[] p, ByteBuf data, Fence fence) throws IOException {
    FileIdPool.FileId id = uploader.reserve(path);
    FileChunk chunk = ChunkUploader.chunk(id, 0, data.readableBytes());
    UploadOnce upload = new UploadOnce(id, data);
    long start = System.nanoTime();
    Throwable entryFailure = null;
    try {
      appendEntry(path, p, List.of(chunk), fence, chunk.getFileId(), upload);
    } catch (IOException | RuntimeException | Error e) {
      entryFailure = e;
    } finally {
      timings.commit(System.nanoTime() - start - upload.nanos);
    }
    // The upload reads the caller's buffer, released once this returns: it runs whatever
    // happened, unless it ran already. Its timeouts bound the wait.
    upload.run();
    Throwable uploadFailure = upload.failure;
    long uploadEnded = upload.endedMillis;
    if (entryFailure != null) {
      // An uploaded chunk no entry lists is left behind, as after a failed transaction of a
      // sequential append.
      if (entryFailure instanceof IOException io) {
        throw io;
      }
      if (entryFailure instanceof RuntimeException re) {
        throw re;
      }
      throw (Error) entryFailure;
    }
    if (uploadFailure != null) {
      storeListedChunkAnew(path, p, chunk, data, fence, uploadFailure);
      return;
    }
    long late =
        uploadEnded
            - chunk.getModifiedTsNs() / 1_000_000
            - SeaweedObjectStore.PENDING_UPLOAD_LIMIT_MS;
    if (late > 0) {
      // Another broker that claimed the partition meanwhile may have read the object as ending
      // before this chunk: the bytes are stored, but the append cannot count as done.
      throw new IOException(
          "append to "
              + path
              + ": the upload of chunk "
              + chunk.getFileId()
              + " ended "
              + late
              + " ms past its limit of "
              + SeaweedObjectStore.PENDING_UPLOAD_LIMIT_MS
              + " ms");
    }
  }

  /**
   * The upload of an append's chunk, run at most once on the appending thread: what it took and how
   * it ended. Never throws; a failure is kept for the append to handle.
   */
  private final class UploadOnce implements Runnable {
    private final FileIdPool.FileId id;
    private final ByteBuf data;
    private boolean ran;
    long nanos;
    long endedMillis;
    Throwable failure;

    UploadOnce(FileIdPool.FileId id, ByteBuf data) {
      this.id = id;
      this.data = data;
    }

    @Override
    public void run() {
      if (ran) {
        return;
      }
      ran = true;
      long start = System.nanoTime();
      try {
        uploader.uploadOnce(id, data);
        endedMillis = System.currentTimeMillis();
      } catch (IOException | RuntimeException e) {
        failure = e;
      } finally {
        nanos = System.nanoTime() - start;
      }
      if (failure == null) {
        timings.upload(nanos, data.readableBytes());
      }
    }
  }

  /**
   * After the upload of {@code listed} failed while the transaction listing it landed: uploads the
   * bytes again (retrying on fresh assignments, as a sequential append does) and replaces the chunk
   * in the entry. If this fails too, the entry still ends in a chunk that was never stored, past
   * the caller's valid data; readers treat the object as ending before it ({@link
   * ChunkReader#read}).
   */
  private void storeListedChunkAnew(
      String path, String[] p, FileChunk listed, ByteBuf data, Fence fence, Throwable why)
      throws IOException {
    log.info(
        "upload of chunk {} of {} failed ({}) while the filer listed it; storing the bytes anew",
        listed.getFileId(),
        path,
        why.toString());
    long start = System.nanoTime();
    FileChunk stored = uploader.upload(path, data).get(0);
    timings.upload(System.nanoTime() - start, data.readableBytes());
    AppendAttempts attempts = new AppendAttempts(filer, batcher::transact, entries, path, retryFor);
    start = System.nanoTime();
    try {
      while (true) {
        Entry current =
            attempts
                .current()
                .orElseThrow(() -> new IOException(path + " vanished during an append"));
        if (hasChunk(current, stored)) {
          entries.put(path, current);
          return; // an earlier attempt landed before its answer was lost
        }
        int i = chunkIndex(current, listed);
        if (i < 0) {
          throw new IOException(
              "append to " + path + ": its entry no longer lists chunk " + listed.getFileId());
        }
        Entry next =
            current.toBuilder()
                .setChunks(i, stored.toBuilder().setOffset(current.getChunks(i).getOffset()))
                .removeExtended(SeaweedObjectStore.PENDING_CHUNK_KEY)
                .build();
        ObjectMutation put = FilerTransactions.put(p[0], next);
        if (attempts.attempt(transaction(path, fence, writer, put), next, fence)) {
          return;
        }
      }
    } finally {
      timings.commit(System.nanoTime() - start);
    }
  }

  /**
   * Adds {@code added} to the entry; {@code pending} names the one whose upload runs alongside the
   * transaction, recorded in the entry, or is null when every added chunk is stored already.
   */
  private void appendEntry(
      String path, String[] p, List<FileChunk> added, Fence fence, String pending)
      throws IOException {
    appendEntry(path, p, added, fence, pending, null);
  }

  /**
   * {@link #appendEntry(String, String[], List, Fence, String)}, running {@code meanwhile} (unless
   * null) while its first transaction is out ({@link TransactionBatcher#transact(
   * ObjectTransactionRequest, Runnable)}); it may not run at all, or run once.
   */
  private void appendEntry(
      String path,
      String[] p,
      List<FileChunk> added,
      Fence fence,
      String pending,
      UploadOnce meanwhile)
      throws IOException {
    AppendAttempts attempts =
        new AppendAttempts(
            filer,
            meanwhile == null ? batcher::transact : r -> batcher.transact(r, meanwhile),
            entries,
            path,
            retryFor);
    while (true) {
      // The entry our last append left is the one to add to, unless a write intervened: then the
      // transaction's condition fails and the next attempt looks the entry up.
      Optional<Entry> current = attempts.current();
      if (attempts.mayHoldAnEarlierAttempt()
          && !added.isEmpty()
          && current.isPresent()
          && hasChunk(current.get(), added.get(0))) {
        entries.put(path, current.get());
        return; // an earlier attempt landed before its answer was lost
      }
      Entry next = Entries.appended(uploader, path, current, added, pending);
      ObjectMutation put = FilerTransactions.put(p[0], next);
      // A fenced append needs no guard of its own: the fence leaves this store the object's only
      // writer, and our view of the entry is dropped after any write whose outcome is unknown.
      ObjectTransactionRequest request =
          fence == null
              ? transaction(path, unchanged(current), put)
              : transaction(path, fence, writer, put);
      if (attempts.attempt(request, next, fence)) {
        return;
      }
    }
  }

  /**
   * The guard of an unfenced append: the entry still has the chunks read, or if its content came
   * from inline appends, still that content.
   */
  private static WriteCondition unchanged(Optional<Entry> current) {
    if (current.isPresent()
        && !current.get().getContent().isEmpty()
        && InlineAppender.inline(current.get())) {
      return InlineAppender.sameContent(current.get());
    }
    return chunksEqual(current);
  }
}
