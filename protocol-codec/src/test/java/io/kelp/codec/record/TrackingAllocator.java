package io.kelp.codec.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/** An allocator that remembers every buffer it hands out, so a test can assert all were freed. */
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

  int allocatedCount() {
    synchronized (allocated) {
      return allocated.size();
    }
  }

  /** Fails if any buffer handed out is still referenced. */
  void assertAllReleased() {
    synchronized (allocated) {
      long live = allocated.stream().filter(b -> b.refCnt() > 0).count();
      assertEquals(0, live, "buffers still referenced out of " + allocated.size());
    }
  }
}
