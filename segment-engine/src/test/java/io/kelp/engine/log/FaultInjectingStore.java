package io.kelp.engine.log;

import io.kelp.engine.store.ConcurrentWrites;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault injector around a real store, for what a real disk cannot do on demand: crash at once
 * (every later call fails, as if the process had died), tear the next append (write only part of
 * it, then crash), fail appends for a while (optionally after writing part of them), hold appends
 * at a gate, or slow them down; slow reads down, counting how many run at once.
 */
final class FaultInjectingStore implements ObjectStore {
  private final ObjectStore inner;
  private volatile boolean crashed;
  private volatile int tearNextAppendAt = -1;
  private final AtomicInteger failingAppends = new AtomicInteger();
  private volatile int failingAppendWrites;
  private volatile CountDownLatch gate;

  /** Appends waiting at {@link #gate}. */
  private final AtomicInteger gated = new AtomicInteger();

  private volatile long appendDelayMs;
  private volatile String gatedPrefix;
  private volatile CountDownLatch prefixGate;
  private volatile long maxAppendsPerObject = Long.MAX_VALUE;
  final AtomicLong appends = new AtomicLong();
  final AtomicLong publishes = new AtomicLong();
  final AtomicLong readBytes = new AtomicLong();
  private volatile long readDelayMs;
  private final AtomicInteger readsNow = new AtomicInteger();
  final AtomicInteger mostReadsAtOnce = new AtomicInteger();

  /** Writer counts the engine announced ({@link ConcurrentWrites#expect}), in order. */
  final List<Integer> expectedWriters = new CopyOnWriteArrayList<>();

  /** Appends made on a thread that was not inside a writer's started..done. */
  final AtomicInteger appendsOutsideWriters = new AtomicInteger();

  private final ThreadLocal<boolean[]> inWriter = ThreadLocal.withInitial(() -> new boolean[1]);

  /** Records what the engine says of its writers, and passes it on. */
  private final ConcurrentWrites writes =
      new ConcurrentWrites() {
        @Override
        public void expect(int writers) {
          expectedWriters.add(writers);
          inner.concurrentWrites().expect(writers);
        }

        @Override
        public void started() {
          inWriter.get()[0] = true;
          inner.concurrentWrites().started();
        }

        @Override
        public void done() {
          inWriter.get()[0] = false;
          inner.concurrentWrites().done();
        }
      };

  FaultInjectingStore(ObjectStore inner) {
    this.inner = inner;
  }

  @Override
  public ConcurrentWrites concurrentWrites() {
    return writes;
  }

  /** What {@link #maxAppendsPerObject()} answers from now on. */
  void boundAppendsPerObject(long n) {
    maxAppendsPerObject = n;
  }

  @Override
  public long maxAppendsPerObject() {
    return maxAppendsPerObject;
  }

  /** Every read from now on takes at least {@code ms} longer. */
  void slowReads(long ms) {
    readDelayMs = ms;
  }

  /** Every call from now on fails. */
  void crash() {
    crashed = true;
  }

  /** The next append writes only its first {@code bytes} bytes, then the store crashes. */
  void tearNextAppend(int bytes) {
    tearNextAppendAt = bytes;
  }

  /** The next {@code n} appends fail, each after writing its first {@code partialBytes} bytes. */
  void failAppends(int n, int partialBytes) {
    failingAppendWrites = partialBytes;
    failingAppends.set(n);
  }

  /** Appends wait until {@link #openGate()}. */
  void closeGate() {
    gate = new CountDownLatch(1);
  }

  /**
   * Waits until {@code n} appends wait at the gate of {@link #closeGate()}: their writers have
   * taken what they write.
   */
  void awaitGated(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (gated.get() < n) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(gated.get() + " appends at the gate, not " + n);
      }
      Thread.sleep(1);
    }
  }

  void openGate() {
    CountDownLatch g = gate;
    gate = null;
    if (g != null) {
      g.countDown();
    }
  }

  /** Appends to paths under {@code prefix} wait until {@link #openPrefixGate()}. */
  void closeGateFor(String prefix) {
    prefixGate = new CountDownLatch(1);
    gatedPrefix = prefix;
  }

  void openPrefixGate() {
    CountDownLatch g = prefixGate;
    gatedPrefix = null;
    prefixGate = null;
    if (g != null) {
      g.countDown();
    }
  }

  void slowAppends(long delayMs) {
    appendDelayMs = delayMs;
  }

  private void check() throws IOException {
    if (crashed) {
      throw new IOException("the store crashed");
    }
  }

  @Override
  public void publish(String path, Fence fence) throws IOException {
    check();
    publishes.incrementAndGet();
    inner.publish(path, fence);
  }

  @Override
  public void append(String path, ByteBuf data, Fence fence) throws IOException {
    check();
    if (!inWriter.get()[0]) {
      appendsOutsideWriters.incrementAndGet();
    }
    String prefix = gatedPrefix;
    CountDownLatch pg = prefixGate;
    if (prefix != null && pg != null && path.startsWith(prefix)) {
      try {
        pg.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted at the gate", e);
      }
    }
    CountDownLatch g = gate;
    if (g != null) {
      gated.incrementAndGet();
      try {
        g.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted at the gate", e);
      } finally {
        gated.decrementAndGet();
      }
    }
    if (appendDelayMs > 0) {
      try {
        Thread.sleep(appendDelayMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    check();
    int tear = tearNextAppendAt;
    if (tear >= 0) {
      tearNextAppendAt = -1;
      crashed = true;
      inner.append(
          path, data.slice(data.readerIndex(), Math.min(tear, data.readableBytes())), fence);
      throw new IOException("the store crashed in the middle of an append");
    }
    if (failingAppends.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      int partial = Math.min(failingAppendWrites, data.readableBytes());
      if (partial > 0) {
        inner.append(path, data.slice(data.readerIndex(), partial), fence);
      }
      throw new IOException("injected append failure");
    }
    inner.append(path, data, fence);
    appends.incrementAndGet();
  }

  @Override
  public void put(String path, ByteBuf data, Fence fence) throws IOException {
    check();
    inner.put(path, data, fence);
  }

  @Override
  public ByteBuf read(String path, long position, int length) throws IOException {
    check();
    mostReadsAtOnce.accumulateAndGet(readsNow.incrementAndGet(), Math::max);
    try {
      if (readDelayMs > 0) {
        try {
          Thread.sleep(readDelayMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted while slowing a read");
        }
      }
      ByteBuf data = inner.read(path, position, length);
      readBytes.addAndGet(data.readableBytes());
      return data;
    } finally {
      readsNow.decrementAndGet();
    }
  }

  @Override
  public Optional<ObjectInfo> stat(String path) throws IOException {
    check();
    return inner.stat(path);
  }

  @Override
  public List<ObjectInfo> list(String directory) throws IOException {
    check();
    return inner.list(directory);
  }

  @Override
  public void delete(String path) throws IOException {
    check();
    inner.delete(path);
  }

  @Override
  public long claim(String directory, long epoch) throws IOException {
    check();
    return inner.claim(directory, epoch);
  }

  @Override
  public String describe() {
    return "faulty:" + inner.describe();
  }

  @Override
  public void close() throws IOException {
    inner.close();
  }
}
