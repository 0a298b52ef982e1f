package io.kelp.engine.segment;

import java.util.Optional;

/**
 * The name of a segment object or of its sidecar. A segment is named by its base offset in 20
 * digits; a segment rewritten by compaction adds a generation, since objects are never rewritten in
 * place:
 *
 * <pre>
 * 00000000000000000000.log       segment data: record batches exactly as produced, offsets assigned
 * 00000000000000000000.index     its sidecar (see {@link SegmentSidecar})
 * 00000000000000001000.c3.log    the segment starting at offset 1000 as cleaned by generation 3
 * 00000000000000001000.c3.index  its sidecar
 * </pre>
 *
 * @param baseOffset the offset the segment starts at
 * @param generation 0 for a segment the log appended, the cleaning generation otherwise
 * @param kind whether this is the data or the sidecar
 */
public record SegmentFile(long baseOffset, int generation, Kind kind) {
  public static final String LOG_SUFFIX = ".log";
  public static final String INDEX_SUFFIX = ".index";

  public enum Kind {
    LOG,
    INDEX
  }

  public static String logName(long baseOffset, int generation) {
    return stem(baseOffset, generation) + LOG_SUFFIX;
  }

  public static String indexName(long baseOffset, int generation) {
    return stem(baseOffset, generation) + INDEX_SUFFIX;
  }

  private static final String ZEROS = "00000000000000000000";

  private static String stem(long baseOffset, int generation) {
    // %020d without a Formatter: segment names are built for every append.
    String digits = Long.toString(baseOffset);
    String base =
        baseOffset >= 0 && digits.length() < 20
            ? ZEROS.substring(digits.length()) + digits
            : digits;
    return generation == 0 ? base : base + ".c" + generation;
  }

  /** The segment file this name denotes, if it is one. */
  public static Optional<SegmentFile> parse(String name) {
    Kind kind;
    String stem;
    if (name.endsWith(LOG_SUFFIX)) {
      kind = Kind.LOG;
      stem = name.substring(0, name.length() - LOG_SUFFIX.length());
    } else if (name.endsWith(INDEX_SUFFIX)) {
      kind = Kind.INDEX;
      stem = name.substring(0, name.length() - INDEX_SUFFIX.length());
    } else {
      return Optional.empty();
    }
    int generation = 0;
    int dot = stem.indexOf('.');
    if (dot >= 0) {
      String gen = stem.substring(dot + 1);
      if (!gen.startsWith("c") || gen.length() < 2 || !digits(gen.substring(1))) {
        return Optional.empty();
      }
      try {
        generation = Integer.parseInt(gen.substring(1));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
      if (generation <= 0) {
        return Optional.empty();
      }
      stem = stem.substring(0, dot);
    }
    if (stem.length() != 20 || !digits(stem)) {
      return Optional.empty();
    }
    try {
      return Optional.of(new SegmentFile(Long.parseLong(stem), generation, kind));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static boolean digits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return !s.isEmpty();
  }
}
