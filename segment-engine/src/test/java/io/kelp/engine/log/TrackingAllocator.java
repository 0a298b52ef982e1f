package io.kelp.engine.log;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/** An allocator that remembers every buffer it made, to prove they were all released. */
final class TrackingAllocator extends AbstractByteBufAllocator {
  private final UnpooledByteBufAllocator delegate = new UnpooledByteBufAllocator(false);
  private final List<ByteBuf> allocated = new ArrayList<>();

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.heapBuffer(initialCapacity, maxCapacity));
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.directBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  private ByteBuf track(ByteBuf buf) {
    synchronized (allocated) {
      allocated.add(buf);
    }
    return buf;
  }

  int allocated() {
    synchronized (allocated) {
      return allocated.size();
    }
  }

  /** Buffers still referenced. */
  long live() {
    synchronized (allocated) {
      return allocated.stream().filter(b -> b.refCnt() > 0).count();
    }
  }
}
