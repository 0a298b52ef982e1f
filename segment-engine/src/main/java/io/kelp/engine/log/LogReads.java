package io.kelp.engine.log;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;

/**
 * Gathers the whole batches of one read: piece by piece from the partition's {@link LogCache}, and
 * from the store through {@link StoreReads} where the cache has nothing, skipping gaps that
 * compaction left, until the size or visible limit is reached.
 *
 * <p>Buffer ownership: the returned buffer (retained slices, composed without copying) belongs to
 * the caller.
 */
final class LogReads {
  private final LogCache cache;
  private final StoreReads store;
  private final ReadAhead readAhead;
  private final ByteBufAllocator alloc;

  LogReads(LogCache cache, StoreReads store, ReadAhead readAhead, ByteBufAllocator alloc) {
    this.cache = cache;
    this.store = store;
    this.readAhead = readAhead;
    this.alloc = alloc;
  }

  /**
   * Whole batches from the one holding {@code offset}, each ending below {@code limit}, at most
   * {@code maxBytes} in all (or one batch if {@code minOneBatch}); null when there are none.
   */
  ByteBuf collect(long offset, long limit, int maxBytes, boolean minOneBatch) throws IOException {
    ByteBuf out = null;
    try {
      long pos = offset;
      int left = Math.max(0, maxBytes);
      boolean first = true;
      while (pos < limit) {
        boolean minOne = first && minOneBatch;
        ReadPiece piece = cache.read(pos, limit, left, minOne);
        if (piece == null && readAhead.awaitBlockOf(pos)) {
          piece = cache.read(pos, limit, left, minOne);
        }
        if (piece == null) {
          piece = store.read(pos, limit, left, minOne);
        }
        if (piece.isSkip()) {
          pos = piece.nextOffset();
          continue;
        }
        if (piece.isEmpty()) {
          break;
        }
        out = compose(out, piece.data());
        left -= piece.bytes();
        pos = piece.nextOffset();
        first = false;
        if (piece.stopped()) {
          break;
        }
      }
      if (out != null) {
        readAhead.after(pos, limit, maxBytes);
      }
      return out;
    } catch (IOException | RuntimeException e) {
      if (out != null) {
        out.release();
      }
      throw e;
    }
  }

  /**
   * Like {@link #collect} but from the cache only, never blocking: null when the batch for {@code
   * offset} is not cached (the caller reads the store instead), else what the cache holds from it,
   * stopping where the cached batches end; an empty buffer when there is nothing below {@code
   * limit}.
   */
  ByteBuf collectCached(long offset, long limit, int maxBytes, boolean minOneBatch) {
    if (offset >= limit) {
      return Unpooled.EMPTY_BUFFER;
    }
    ByteBuf out = null;
    long pos = offset;
    int left = Math.max(0, maxBytes);
    boolean first = true;
    while (pos < limit) {
      ReadPiece piece = cache.read(pos, limit, left, first && minOneBatch);
      if (piece == null) {
        if (first) {
          return null;
        }
        break;
      }
      if (piece.isEmpty()) {
        break;
      }
      out = compose(out, piece.data());
      left -= piece.bytes();
      pos = piece.nextOffset();
      first = false;
      if (piece.stopped()) {
        break;
      }
    }
    if (out == null) {
      return Unpooled.EMPTY_BUFFER;
    }
    readAhead.after(pos, limit, maxBytes);
    return out;
  }

  private ByteBuf compose(ByteBuf out, ByteBuf piece) {
    if (out == null) {
      return piece;
    }
    CompositeByteBuf composite;
    if (out instanceof CompositeByteBuf c) {
      composite = c;
    } else {
      composite = alloc.compositeBuffer(Integer.MAX_VALUE);
      composite.addComponent(true, out);
    }
    composite.addComponent(true, piece);
    return composite;
  }
}
