package io.kelp.engine.log;

import io.kelp.engine.segment.SegmentFile;
import io.kelp.engine.segment.SegmentSidecar;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The segments in a partition directory as the store lists them, resolved into the ones that make
 * up the log and the leftovers of interrupted work. Reads sidecars but changes nothing, so offline
 * tools use it too.
 *
 * <p>Compaction writes a cleaned segment {@code <b>.c<g>.log}, then its sidecar, then deletes the
 * segments it replaces (the one at base b last). So a cleaned segment with a valid sidecar replaces
 * every older-generation segment whose base lies in the offsets it covers; one without a valid
 * sidecar while an older segment at base b still exists was interrupted and is a leftover; one
 * without a valid sidecar and nothing older at b lost its sidecar after the fact and is kept (its
 * sidecar is rebuilt). A sidecar without its segment is a leftover too.
 */
final class SegmentListing {
  /** One segment of the log: its object, its size and its sidecar if that is valid. */
  static final class Entry {
    final long baseOffset;
    final int generation;
    long logSize = -1;
    boolean hasIndex;
    long indexSize;
    SegmentSidecar.Contents sidecar;
    String sidecarProblem;
    boolean leftover;

    Entry(long baseOffset, int generation) {
      this.baseOffset = baseOffset;
      this.generation = generation;
    }

    String logName() {
      return SegmentFile.logName(baseOffset, generation);
    }

    String indexName() {
      return SegmentFile.indexName(baseOffset, generation);
    }
  }

  final List<Entry> live = new ArrayList<>();
  final List<Entry> leftovers = new ArrayList<>();

  private SegmentListing() {}

  static SegmentListing of(ObjectStore store, String directory) throws IOException {
    Map<String, Entry> byStem = new TreeMap<>();
    for (ObjectInfo info : store.list(directory)) {
      if (info.directory()) {
        continue;
      }
      var parsed = SegmentFile.parse(info.name());
      if (parsed.isEmpty()) {
        continue;
      }
      SegmentFile f = parsed.get();
      Entry e =
          byStem.computeIfAbsent(
              f.baseOffset() + "/" + f.generation(),
              k -> new Entry(f.baseOffset(), f.generation()));
      if (f.kind() == SegmentFile.Kind.LOG) {
        e.logSize = info.size();
      } else {
        e.hasIndex = true;
        e.indexSize = info.size();
      }
    }
    List<Entry> all = new ArrayList<>(byStem.values());
    all.sort(
        Comparator.comparingLong((Entry e) -> e.baseOffset)
            .thenComparing(e -> e.generation, Comparator.reverseOrder()));
    SegmentListing listing = new SegmentListing();
    for (Entry e : all) {
      if (e.logSize < 0) {
        e.leftover = true;
        continue;
      }
      if (e.hasIndex) {
        readSidecar(store, directory, e);
      }
    }
    resolveGenerations(all);
    for (Entry e : all) {
      (e.leftover ? listing.leftovers : listing.live).add(e);
    }
    return listing;
  }

  private static void readSidecar(ObjectStore store, String directory, Entry e) throws IOException {
    ByteBuf data;
    if (e.indexSize > Integer.MAX_VALUE) {
      e.sidecarProblem = "it is too large";
      return;
    }
    try {
      data = store.read(directory + "/" + e.indexName(), 0, (int) e.indexSize);
    } catch (NoSuchFileException gone) {
      e.hasIndex = false;
      return;
    }
    try {
      SegmentSidecar.Contents c = SegmentSidecar.decode(data);
      if (c.baseOffset() != e.baseOffset || c.generation() != e.generation) {
        e.sidecarProblem = "it belongs to another segment";
      } else if (c.validLength() > e.logSize) {
        e.sidecarProblem =
            "its valid length " + c.validLength() + " is past the segment's " + e.logSize;
      } else {
        e.sidecar = c;
      }
    } catch (IllegalArgumentException bad) {
      e.sidecarProblem = bad.getMessage();
    } finally {
      data.release();
    }
  }

  private static void resolveGenerations(List<Entry> all) {
    List<Entry> cleaned = new ArrayList<>();
    for (Entry e : all) {
      if (!e.leftover && e.generation > 0) {
        cleaned.add(e);
      }
    }
    cleaned.sort(Comparator.comparing((Entry e) -> e.generation).reversed());
    for (Entry c : cleaned) {
      if (c.leftover) {
        continue;
      }
      if (c.sidecar != null) {
        long end = c.sidecar.lastOffset() + 1;
        for (Entry e : all) {
          if (e != c
              && !e.leftover
              && e.generation < c.generation
              && e.baseOffset >= c.baseOffset
              && e.baseOffset < Math.max(end, c.baseOffset + 1)) {
            e.leftover = true;
          }
        }
      } else {
        for (Entry e : all) {
          if (e != c
              && !e.leftover
              && e.generation < c.generation
              && e.baseOffset == c.baseOffset) {
            c.leftover = true;
            break;
          }
        }
      }
    }
    // Two live entries at one base cannot both be right: keep the newest generation.
    Entry previous = null;
    for (Entry e : all) {
      if (e.leftover) {
        continue;
      }
      if (previous != null && previous.baseOffset == e.baseOffset) {
        e.leftover = true;
        continue;
      }
      previous = e;
    }
  }
}
