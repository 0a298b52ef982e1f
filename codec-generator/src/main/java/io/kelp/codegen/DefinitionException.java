package io.kelp.codegen;

/** A mistake in a message definition, with the file and line it is on. */
final class DefinitionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  DefinitionException(String file, int line, String message) {
    super(file + ":" + line + ": " + message);
  }
}
