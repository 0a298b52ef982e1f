package io.kelp.engine.log;

/** How far a read may go. */
public enum Isolation {
  /** Up to the high watermark. */
  READ_UNCOMMITTED,
  /** Up to the last stable offset. */
  READ_COMMITTED
}
