package io.kelp.codegen;

/** Java source text with indentation, built line by line. */
final class CodeBuffer {
  private final StringBuilder text = new StringBuilder();
  private int indent;

  CodeBuffer line(String format, Object... args) {
    String line = args.length == 0 ? format : String.format(format, args);
    if (!line.isEmpty()) {
      text.append("  ".repeat(indent)).append(line);
    }
    text.append('\n');
    return this;
  }

  /** Writes a line ending in an opening brace and indents what follows. */
  CodeBuffer open(String format, Object... args) {
    line(format, args);
    indent++;
    return this;
  }

  /** Closes a block opened with {@link #open}; {@code format} is the closing line. */
  CodeBuffer close(String format, Object... args) {
    indent--;
    return line(format, args);
  }

  /** Closes a block and opens the next one on the same line, as in {@code "} else {"}. */
  CodeBuffer reopen(String format, Object... args) {
    indent--;
    line(format, args);
    indent++;
    return this;
  }

  CodeBuffer close() {
    return close("}");
  }

  @Override
  public String toString() {
    return text.toString();
  }
}
