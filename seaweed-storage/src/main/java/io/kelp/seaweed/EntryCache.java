package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.Entry;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The filer entries of the objects this store appended to last, by path, as its own appends left
 * them: an append need not look its entry up before adding to it, and a read inside the size known
 * here need not look it up either. Only appends fill it (an appended object only grows, so a range
 * it held once holds the same bytes later); our puts and deletes drop the path. A write by another
 * store to the same object is not seen here: our next append still holds, because its transaction
 * requires the chunks we knew and falls back to a fresh lookup, and our reads stay inside bytes
 * that were written.
 */
final class EntryCache {
  private final int maxEntries;
  private final long maxBytes;
  private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  /**
   * @param maxEntries the most entries kept
   * @param maxBytes the most serialized entry bytes kept (an entry grows with its chunk list)
   */
  EntryCache(int maxEntries, long maxBytes) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  synchronized Optional<Entry> get(String path) {
    return Optional.ofNullable(entries.get(path));
  }

  synchronized void put(String path, Entry entry) {
    long size = entry.getSerializedSize();
    if (size > maxBytes) {
      forget(path);
      return;
    }
    Entry old = entries.put(path, entry);
    if (old != null) {
      bytes -= old.getSerializedSize();
    }
    bytes += size;
    Iterator<Map.Entry<String, Entry>> eldest = entries.entrySet().iterator();
    while ((entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
      bytes -= eldest.next().getValue().getSerializedSize();
      eldest.remove();
    }
  }

  synchronized void forget(String path) {
    Entry old = entries.remove(path);
    if (old != null) {
      bytes -= old.getSerializedSize();
    }
  }

  /** Drops {@code path} and everything under it. */
  synchronized void forgetTree(String path) {
    String prefix = path.endsWith("/") ? path : path + "/";
    Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Entry> e = it.next();
      if (e.getKey().equals(path) || e.getKey().startsWith(prefix)) {
        bytes -= e.getValue().getSerializedSize();
        it.remove();
      }
    }
  }

  synchronized int size() {
    return entries.size();
  }

  synchronized long bytes() {
    return bytes;
  }
}
