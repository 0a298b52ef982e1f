package io.kelp.engine.store;

import io.netty.buffer.ByteBuf;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where Kelp keeps every byte: a tree of named objects, as in a filesystem. Objects are appended to
 * or written whole, never modified in place, so the same interface fits a local disk and a
 * SeaweedFS filer. Paths are absolute, '/'-separated, without a trailing '/', e.g. {@code
 * /topics/kafka/orders/v2026-11-29-22-00-00/0000-2520/00000000000000000000.log}.
 *
 * <p>Every method is blocking and thread-safe; callers run them off the network threads. A method
 * that returns normally has done its work durably: on a local disk the data is fsync'd, on
 * SeaweedFS the chunk is stored and the entry updated.
 *
 * <p>Fencing: a partition's writer claims its directory with an owner epoch ({@link #claim}); its
 * appends and puts carry a {@link Fence}, and fail with {@link FencedException} once another writer
 * has claimed the directory with a higher epoch. Unfenced writes pass {@code null}.
 *
 * <p>Buffer ownership: data passed in is read, not released, and its reader index is unchanged;
 * buffers returned by {@link #read} belong to the caller, who releases them.
 */
public interface ObjectStore extends Closeable {

  /** Appends {@code data} to the object at {@code path}, creating it (and parents) if missing. */
  void append(String path, ByteBuf data, Fence fence) throws IOException;

  /**
   * Makes every append to {@code path} so far visible to every reader of the store, not only to
   * this instance. A store may acknowledge a fenced append before readers elsewhere can see it (on
   * SeaweedFS, a chunk uploaded to a file id the entry reserved, listed in the entry later); this
   * writes down what such readers miss. A writer calls it between its own appends to the object,
   * never at the same time as one. Nothing to do by default.
   */
  default void publish(String path, Fence fence) throws IOException {}

  /** Creates the object at {@code path}, or replaces it whole and atomically. */
  void put(String path, ByteBuf data, Fence fence) throws IOException;

  /**
   * Reads up to {@code length} bytes of the object at {@code path} from {@code position}. Returns
   * fewer bytes at the end of the object and an empty buffer past it.
   *
   * @throws java.nio.file.NoSuchFileException if there is no such object
   */
  ByteBuf read(String path, long position, int length) throws IOException;

  /** The object or directory at {@code path}, if there is one. */
  Optional<ObjectInfo> stat(String path) throws IOException;

  /** The children of a directory, sorted by name; empty if the directory does not exist. */
  List<ObjectInfo> list(String directory) throws IOException;

  /** Deletes an object, or a directory with everything under it. Missing paths are fine. */
  void delete(String path) throws IOException;

  /**
   * Records {@code epoch} as the owner epoch of {@code directory} if it is higher than the one
   * recorded, and returns the epoch recorded afterwards. A writer whose epoch is lower than the
   * returned one has lost the directory.
   *
   * @throws FencedException if {@code epoch} is the one recorded but another writer recorded it (a
   *     store shared by several processes tells its writers apart, so that one epoch never has two)
   */
  long claim(String directory, long epoch) throws IOException;

  /**
   * How many appends one object should take before its writer moves on to a new object, for stores
   * whose per-append cost grows with the appends an object already holds (on SeaweedFS each append
   * rewrites the entry with its whole chunk list). Unbounded by default.
   */
  default long maxAppendsPerObject() {
    return Long.MAX_VALUE;
  }

  /**
   * Where the engine reports writers that run at once, so that the store can share their round
   * trips. By default nothing is shared.
   */
  default ConcurrentWrites concurrentWrites() {
    return ConcurrentWrites.NONE;
  }

  /**
   * A short description for log lines, e.g. {@code local:./data} or {@code seaweedfs:host:8888}.
   */
  String describe();
}
