package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.Entry;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Filer entries of chunked objects that this store looked up or listed, kept for later reads: a
 * consumer reading a segment block by block, or reading the segments a broker listed when it opened
 * a partition, does not look the entry up again for every block. Only reads use them, and only
 * inside the size an entry records: an appended object only grows, so a range it held once holds
 * the same bytes later, and a read past that size looks the entry up again. Appends never use them
 * (they add to {@link EntryCache}'s entries, which this store's own appends left).
 *
 * <p>Objects replaced whole ({@code put}) or deleted would make a kept entry wrong, so both drop
 * the path once the filer has applied them, and an entry looked up while one of them ran is not
 * kept ({@link #replaced} counts them). Small objects kept in the entry's content (topic configs,
 * markers, group logs while small) are not kept here at all: they are what other brokers may
 * replace, and reading them costs one lookup anyway.
 */
final class ReadEntries {
  private final EntryCache entries;
  private final AtomicLong replaced = new AtomicLong();

  ReadEntries(int maxEntries, long maxBytes) {
    this.entries = new EntryCache(maxEntries, maxBytes);
  }

  Optional<Entry> get(String path) {
    return entries.get(path);
  }

  /** A mark to pass to {@link #keep}, taken before the lookup or listing that found an entry. */
  long mark() {
    return replaced.get();
  }

  /** Keeps {@code entry}, found after {@code mark}, unless an object was replaced since. */
  void keep(String path, Entry entry, long mark) {
    if (entry.getIsDirectory() || entry.getChunksCount() == 0 || !entry.getContent().isEmpty()) {
      return;
    }
    entries.put(path, entry);
    if (replaced.get() != mark) {
      entries.forget(path); // a put or delete ran meanwhile: the entry may predate it
    }
  }

  /** After the filer replaced or deleted {@code path} (and, for a directory, all under it). */
  void replaced(String path) {
    replaced.incrementAndGet();
    entries.forgetTree(path);
  }
}
