package io.kelp.seaweed;

import io.kelp.engine.store.ObjectInfo;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.kelp.seaweed.filer.FilerProto.FuseAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

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
}
