package io.kelp.engine.log;

import io.netty.buffer.ByteBuf;

/**
 * Part of a read: whole batches from one cached range or store block.
 *
 * @param data a retained slice the caller releases, or null when nothing was taken
 * @param nextOffset the offset after the last batch taken
 * @param bytes the bytes taken
 * @param stopped whether the read cannot continue past this piece (size limit, visible limit or the
 *     end of the range's batches reached before the next batch)
 */
record ReadPiece(ByteBuf data, long nextOffset, int bytes, boolean stopped) {
  /** Nothing to take here: the range ends before the offset or at the visible limit. */
  static final ReadPiece NONE = new ReadPiece(null, -1, 0, true);

  /** The next batch does not fit in the bytes left. */
  static final ReadPiece FULL = new ReadPiece(null, -1, 0, true);

  /**
   * Nothing here, but the log has no batch before {@code offset} either (a gap left by compaction):
   * the read goes on from there.
   */
  static ReadPiece skipTo(long offset) {
    return new ReadPiece(null, offset, 0, false);
  }

  boolean isEmpty() {
    return data == null;
  }

  boolean isSkip() {
    return data == null && !stopped;
  }
}
