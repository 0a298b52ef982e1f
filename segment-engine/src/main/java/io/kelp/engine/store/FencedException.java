package io.kelp.engine.store;

import java.io.IOException;

/** A write was refused because another writer claimed the directory with a higher epoch. */
public final class FencedException extends IOException {
  private static final long serialVersionUID = 1L;

  public FencedException(String message) {
    super(message);
  }
}
