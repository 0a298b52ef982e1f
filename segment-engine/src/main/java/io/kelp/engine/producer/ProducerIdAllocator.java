package io.kelp.engine.producer;

import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Hands out producer ids that are never reused, across restarts. Ids are reserved from the store in
 * blocks: the object {@value #PATH} holds, as decimal text, the first id of the next free block,
 * and is rewritten (durably) before any id of a new block is handed out.
 */
public final class ProducerIdAllocator {
  public static final String PATH = "/kelp/producer-ids";
  static final long BLOCK_SIZE = 1000;

  private final ObjectStore store;
  private long next;
  private long blockEnd;

  public ProducerIdAllocator(ObjectStore store) {
    this.store = store;
  }

  /** A fresh producer id. */
  public synchronized long allocate() throws IOException {
    if (next >= blockEnd) {
      long start = readNextBlock();
      long end = start + BLOCK_SIZE;
      byte[] text = Long.toString(end).getBytes(StandardCharsets.US_ASCII);
      store.put(PATH, Unpooled.wrappedBuffer(text), null);
      next = start;
      blockEnd = end;
    }
    return next++;
  }

  private long readNextBlock() throws IOException {
    Optional<io.kelp.engine.store.ObjectInfo> stat = store.stat(PATH);
    if (stat.isEmpty()) {
      return 0;
    }
    ByteBuf data = store.read(PATH, 0, (int) stat.get().size());
    try {
      String text = data.toString(StandardCharsets.US_ASCII).trim();
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw new IOException("corrupt producer id block in " + PATH + ": '" + text + "'", e);
      }
    } finally {
      data.release();
    }
  }
}
