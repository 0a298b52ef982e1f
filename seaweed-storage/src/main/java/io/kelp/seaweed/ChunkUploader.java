package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.AssignVolumeRequest;
import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores chunk bytes on volume servers: file ids assigned ahead per directory ({@link FileIdPool}),
 * uploads retried with backoff on a fresh assignment for up to {@code retryFor}.
 */
final class ChunkUploader implements AutoCloseable {
  /** File ids per assignment made ahead: one master round trip per this many uploads. */
  private static final int ASSIGN_BATCH = 64;

  private static final Logger log = LoggerFactory.getLogger(ChunkUploader.class);

  private final FilerClient filer;
  private final VolumeClient volumes;
  private final String collection;
  private final String replication;
  private final Duration retryFor;
  private final FileIdPool fileIds = new FileIdPool(this::assign, ASSIGN_BATCH);

  ChunkUploader(
      FilerClient filer,
      VolumeClient volumes,
      String collection,
      String replication,
      Duration retryFor) {
    this.filer = filer;
    this.volumes = volumes;
    this.collection = collection;
    this.replication = replication;
    this.retryFor = retryFor;
  }

  /**
   * Uploads {@code data} as chunks of up to {@value SeaweedObjectStore#MAX_CHUNK} bytes, offsets
   * from 0.
   */
  List<FileChunk> upload(String path, ByteBuf data) throws IOException {
    List<FileChunk> chunks = new ArrayList<>();
    int start = data.readerIndex();
    int total = data.readableBytes();
    for (int done = 0; done < total; ) {
      int n = Math.min(SeaweedObjectStore.MAX_CHUNK, total - done);
      chunks.add(uploadChunk(path, data.slice(start + done, n), done));
      done += n;
    }
    return chunks;
  }

  AssignVolumeResponse assign(String path, int count) throws IOException {
    return filer.assign(
        AssignVolumeRequest.newBuilder()
            .setCount(count)
            .setCollection(collection)
            .setReplication(replication)
            .setPath(path)
            .build());
  }

  /** A file id for a chunk of {@code path}, to upload to with {@link #uploadOnce}. */
  FileIdPool.FileId reserve(String path) throws IOException {
    return fileIds.take(Entries.split(path)[0]);
  }

  /** One upload of {@code bytes} to {@code id}, without retries. */
  void uploadOnce(FileIdPool.FileId id, ByteBuf bytes) throws IOException {
    volumes.upload(id.url(), id.uploadId(), id.auth(), bytes);
  }

  /** The chunk {@code id} of {@code size} bytes at {@code offset}, as an entry lists it. */
  static FileChunk chunk(FileIdPool.FileId id, long offset, int size) {
    return FileChunk.newBuilder()
        .setFileId(id.fileId())
        .setOffset(offset)
        .setSize(size)
        .setModifiedTsNs(System.currentTimeMillis() * 1_000_000)
        // No e_tag: as with SeaweedFS's own writers unless asked for one, which saves an MD5 of
        // every byte (a fifth of the broker's CPU under produce load); record batches carry
        // their own CRC.
        .build();
  }

  FileChunk uploadChunk(String path, ByteBuf bytes, long offset) throws IOException {
    long deadline = System.nanoTime() + retryFor.toNanos();
    long backoffMs = 20;
    boolean first = true;
    for (int attempt = 1; ; attempt++) {
      // After a failed upload, a fresh assignment: the ready one may be what failed.
      FileIdPool.FileId assigned =
          first ? fileIds.take(Entries.split(path)[0]) : FileIdPool.FileId.of(assign(path, 1), 0);
      first = false;
      try {
        volumes.upload(assigned.url(), assigned.uploadId(), assigned.auth(), bytes);
      } catch (IOException e) {
        if (System.nanoTime() + backoffMs * 1_000_000 > deadline) {
          throw new IOException("upload of a chunk of " + path + " failed", e);
        }
        if (attempt == 1 || attempt % 10 == 0) {
          log.info(
              "upload of a chunk of {} to volume server {} failed ({}), retrying on a fresh"
                  + " assignment",
              path,
              assigned.url(),
              e.toString());
        }
        FilerClient.sleep(backoffMs);
        backoffMs = Math.min(1000, backoffMs * 2);
        continue;
      }
      return chunk(assigned, offset, bytes.readableBytes());
    }
  }

  @Override
  public void close() {
    fileIds.close();
  }

  /**
   * Stores a small chunk under {@code directory}'s storage rules, reads it back and deletes it: the
   * start-up check of {@link SeaweedObjectStore#checkVolumes}. Returns the id the chunk had.
   */
  FileIdPool.FileId checkVolumeChunk(String directory) throws IOException {
    AssignVolumeResponse assigned = assign(directory, 1);
    FileIdPool.FileId id = FileIdPool.FileId.of(assigned, 0);
    byte[] probe = "kelp".getBytes(StandardCharsets.US_ASCII);
    volumes.upload(id.url(), id.uploadId(), id.auth(), Unpooled.wrappedBuffer(probe));
    try {
      ByteBuf back = volumes.read(id.url(), id.uploadId(), 0, probe.length);
      try {
        if (!Arrays.equals(ByteBufUtil.getBytes(back), probe)) {
          throw new IOException("volume server " + id.url() + " returned other bytes than stored");
        }
      } finally {
        back.release();
      }
    } finally {
      volumes.delete(id.url(), id.uploadId(), id.auth());
    }
    return id;
  }
}
