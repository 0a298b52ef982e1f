package io.kelp.seaweed;

import io.kelp.engine.store.ConcurrentWrites;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/** A store seen under a root directory, so tests sharing one SeaweedFS do not see each other. */
final class RootedStore implements ObjectStore {
  private final String root;
  private final ObjectStore store;

  RootedStore(String root, ObjectStore store) {
    this.root = root;
    this.store = store;
  }

  private String at(String path) {
    return path.equals("/") ? root : root + path;
  }

  private Fence at(Fence fence) {
    return fence == null ? null : new Fence(at(fence.directory()), fence.epoch());
  }

  @Override
  public void append(String path, ByteBuf data, Fence fence) throws IOException {
    store.append(at(path), data, at(fence));
  }

  @Override
  public void publish(String path, Fence fence) throws IOException {
    store.publish(at(path), at(fence));
  }

  @Override
  public void put(String path, ByteBuf data, Fence fence) throws IOException {
    store.put(at(path), data, at(fence));
  }

  @Override
  public ByteBuf read(String path, long position, int length) throws IOException {
    return store.read(at(path), position, length);
  }

  @Override
  public Optional<ObjectInfo> stat(String path) throws IOException {
    return store.stat(at(path));
  }

  @Override
  public List<ObjectInfo> list(String directory) throws IOException {
    return store.list(at(directory));
  }

  @Override
  public void delete(String path) throws IOException {
    store.delete(at(path));
  }

  @Override
  public long claim(String directory, long epoch) throws IOException {
    return store.claim(at(directory), epoch);
  }

  @Override
  public String describe() {
    return store.describe() + root;
  }

  @Override
  public ConcurrentWrites concurrentWrites() {
    return store.concurrentWrites();
  }

  @Override
  public long maxAppendsPerObject() {
    return store.maxAppendsPerObject();
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
