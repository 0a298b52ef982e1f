package io.kelp.seaweed;

import com.google.protobuf.ByteString;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.kelp.seaweed.filer.FilerProto.FuseAttributes;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** What the store reads from filer entries and paths, and the attributes of a new entry. */
final class Entries {
  private Entries() {}

  static int chunkIndex(Entry entry, FileChunk chunk) {
    for (int i = 0; i < entry.getChunksCount(); i++) {
      if (entry.getChunks(i).getFileId().equals(chunk.getFileId())) {
        return i;
      }
    }
    return -1;
  }

  static boolean hasChunk(Entry entry, FileChunk chunk) {
    for (FileChunk c : entry.getChunksList()) {
      if (c.getFileId().equals(chunk.getFileId())) {
        return true;
      }
    }
    return false;
  }

  static List<FileChunk> sortedChunks(Entry entry) {
    List<FileChunk> chunks = new ArrayList<>(entry.getChunksList());
    chunks.sort(Comparator.comparingLong(FileChunk::getOffset));
    return chunks;
  }

  /** The size as the filer computes it: the largest of the recorded size, chunks and content. */
  static long size(Entry entry) {
    long size = Math.max(entry.getAttributes().getFileSize(), entry.getContent().size());
    for (FileChunk c : entry.getChunksList()) {
      size = Math.max(size, c.getOffset() + c.getSize());
    }
    return size;
  }

  static ObjectInfo info(Entry e) {
    return new ObjectInfo(e.getName(), e.getIsDirectory(), e.getIsDirectory() ? 0 : size(e));
  }

  static FuseAttributes newAttributes(long nowSeconds) {
    return FuseAttributes.newBuilder()
        .setCrtime(nowSeconds)
        .setMtime(nowSeconds)
        .setFileMode(0644)
        .build();
  }

  /** {parent directory, name} of an absolute path; the root's parent is "/". */
  static String[] split(String path) {
    if (!path.startsWith("/") || path.length() < 2 || path.endsWith("/")) {
      throw new IllegalArgumentException("store paths are absolute, without a trailing /: " + path);
    }
    int slash = path.lastIndexOf('/');
    return new String[] {slash == 0 ? "/" : path.substring(0, slash), path.substring(slash + 1)};
  }

  /**
   * The entry after adding {@code added} at its end; inline content first becomes a chunk (and the
   * MD5 stamped with it goes). {@code pending} names the chunk whose upload runs alongside the
   * transaction, recorded in the entry's {@value SeaweedObjectStore#PENDING_CHUNK_KEY}, or is null.
   */
  static Entry appended(
      ChunkUploader uploader,
      String path,
      Optional<Entry> current,
      List<FileChunk> added,
      String pending)
      throws IOException {
    long now = System.currentTimeMillis() / 1000;
    Entry.Builder next;
    long size;
    if (current.isPresent()) {
      next = current.get().toBuilder();
      size = size(current.get());
      if (!current.get().getContent().isEmpty()) {
        byte[] inline = current.get().getContent().toByteArray();
        next.clearContent()
            .addChunks(uploader.uploadChunk(path, Unpooled.wrappedBuffer(inline), 0))
            .setAttributes(next.getAttributes().toBuilder().clearMd5());
      }
    } else {
      next = Entry.newBuilder().setName(split(path)[1]).setAttributes(newAttributes(now));
      size = 0;
    }
    long end = size;
    for (FileChunk c : added) {
      next.addChunks(c.toBuilder().setOffset(size + c.getOffset()));
      end = size + c.getOffset() + c.getSize();
    }
    next.setAttributes(next.getAttributes().toBuilder().setFileSize(end).setMtime(now));
    if (pending != null) {
      next.putExtended(SeaweedObjectStore.PENDING_CHUNK_KEY, ByteString.copyFromUtf8(pending));
    } else {
      next.removeExtended(SeaweedObjectStore.PENDING_CHUNK_KEY);
    }
    return next.build();
  }
}
