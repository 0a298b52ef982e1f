package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.Entry;
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
  private final Map<String, Entry> entries;

  EntryCache(int maxEntries) {
    this.entries =
        new LinkedHashMap<>(64, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > maxEntries;
          }
        };
  }

  synchronized Optional<Entry> get(String path) {
    return Optional.ofNullable(entries.get(path));
  }

  synchronized void put(String path, Entry entry) {
    entries.put(path, entry);
  }

  synchronized void forget(String path) {
    entries.remove(path);
  }

  /** Drops {@code path} and everything under it. */
  synchronized void forgetTree(String path) {
    String prefix = path.endsWith("/") ? path : path + "/";
    entries.keySet().removeIf(p -> p.equals(path) || p.startsWith(prefix));
  }
}
