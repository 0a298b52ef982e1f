package io.kelp.codegen;

/**
 * An inclusive range of protocol versions, as written in a message definition: {@code 3+}, {@code
 * 0-4}, {@code 7} or {@code none}.
 */
record Versions(int lowest, int highest) {
  static final int MAX = Short.MAX_VALUE;
  static final Versions NONE = new Versions(1, 0);
  static final Versions ALL = new Versions(0, MAX);

  static Versions parse(String text) {
    if (text.equals("none")) {
      return NONE;
    }
    if (text.endsWith("+")) {
      return new Versions(Integer.parseInt(text.substring(0, text.length() - 1)), MAX);
    }
    int dash = text.indexOf('-');
    if (dash > 0) {
      int lo = Integer.parseInt(text.substring(0, dash));
      int hi = Integer.parseInt(text.substring(dash + 1));
      if (hi < lo) {
        throw new IllegalArgumentException("empty version range " + text);
      }
      return new Versions(lo, hi);
    }
    int v = Integer.parseInt(text);
    return new Versions(v, v);
  }

  static boolean looksLikeVersions(String token) {
    return token.equals("none") || token.matches("\\d+(\\+|-\\d+)?");
  }

  boolean isEmpty() {
    return highest < lowest;
  }

  Versions intersect(Versions other) {
    int lo = Math.max(lowest, other.lowest);
    int hi = Math.min(highest, other.highest);
    return hi < lo ? NONE : new Versions(lo, hi);
  }

  /**
   * The versions of this range outside {@code other}, or null when that is not one range (other
   * lies strictly inside this one).
   */
  Versions subtract(Versions other) {
    Versions overlap = intersect(other);
    if (overlap.isEmpty()) {
      return this;
    }
    if (overlap.equals(this)) {
      return NONE;
    }
    if (overlap.lowest == lowest) {
      return new Versions(overlap.highest + 1, highest);
    }
    if (overlap.highest == highest) {
      return new Versions(lowest, overlap.lowest - 1);
    }
    return null;
  }

  boolean contains(Versions other) {
    return other.isEmpty() || (lowest <= other.lowest && other.highest <= highest);
  }

  /**
   * A Java boolean expression over the variable {@code version} that is true for versions in this
   * range, simplified for the versions the message can have at all.
   */
  String condition(Versions valid) {
    Versions effective = intersect(valid);
    if (effective.isEmpty()) {
      return "false";
    }
    boolean needLow = effective.lowest > valid.lowest;
    boolean needHigh = effective.highest < valid.highest;
    if (needLow && needHigh) {
      return effective.lowest == effective.highest
          ? "version == " + effective.lowest
          : "version >= " + effective.lowest + " && version <= " + effective.highest;
    }
    if (needLow) {
      return "version >= " + effective.lowest;
    }
    if (needHigh) {
      return "version <= " + effective.highest;
    }
    return "true";
  }

  @Override
  public String toString() {
    if (isEmpty()) {
      return "none";
    }
    if (highest == MAX) {
      return lowest + "+";
    }
    return lowest == highest ? Integer.toString(lowest) : lowest + "-" + highest;
  }
}
