package io.kelp.engine.log;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/**
 * The batches of one append, with offsets assigned, waiting for the flusher.
 *
 * <p>Buffer ownership: the log owns {@code data} until the flusher has written it, then hands it to
 * the partition's cache (or releases it).
 */
final class PendingChunk {
  final ByteBuf data;
  final long firstOffset;
  final long nextOffset;
  final CompletableFuture<Void> durable = new CompletableFuture<>();

  PendingChunk(ByteBuf data, long firstOffset, long nextOffset) {
    this.data = data;
    this.firstOffset = firstOffset;
    this.nextOffset = nextOffset;
  }

  int size() {
    return data.readableBytes();
  }
}
