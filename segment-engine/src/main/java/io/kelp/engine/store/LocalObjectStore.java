package io.kelp.engine.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The embedded store: the object tree mirrored under a local directory. Appends are written and
 * fsync'd before they return; puts write a temporary file, fsync it and rename it over the old one,
 * so readers see the old or the new object, never a mix. Owner epochs live in a file named {@value
 * #EPOCH_FILE} in the claimed directory.
 *
 * <p>One process owns a data directory; the epoch checks guard against a stale writer inside it. A
 * store opened with {@link #exclusive} enforces that: it holds an OS lock on {@value #LOCK_FILE} in
 * the directory until closed, and a second one fails to open, in this process or another.
 */
public final class LocalObjectStore implements ObjectStore {
  static final String EPOCH_FILE = "owner.epoch";
  static final String LOCK_FILE = ".lock";
  private static final int MAX_OPEN_FILES = 1024;

  private final Path root;
  private final ByteBufAllocator allocator;
  private final Map<Path, FileChannel> appendChannels = new ConcurrentHashMap<>();
  private final Map<String, Long> epochs = new ConcurrentHashMap<>();
  private FileChannel lock;

  /** A store on {@code root} that does not lock it (tools that read a broker's data). */
  public LocalObjectStore(Path root, ByteBufAllocator allocator) throws IOException {
    this.root = root.toAbsolutePath().normalize();
    this.allocator = allocator;
    Files.createDirectories(this.root);
  }

  /**
   * A store that owns {@code root} until closed: the one a broker writes through.
   *
   * @throws IOException if another store holds it, saying so
   */
  public static LocalObjectStore exclusive(Path root, ByteBufAllocator allocator)
      throws IOException {
    LocalObjectStore store = new LocalObjectStore(root, allocator);
    Path file = store.root.resolve(LOCK_FILE);
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      if (channel.tryLock() == null) {
        throw new IOException(
            "data directory " + store.root + " is in use by another Kelp process (" + file + ")");
      }
    } catch (OverlappingFileLockException e) {
      channel.close();
      throw new IOException("data directory " + store.root + " is in use by this process", e);
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    store.lock = channel;
    return store;
  }

  public Path root() {
    return root;
  }

  private Path resolve(String path) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("store paths are absolute: " + path);
    }
    Path p = root.resolve(path.substring(1)).normalize();
    if (!p.startsWith(root)) {
      throw new IllegalArgumentException("path escapes the store: " + path);
    }
    return p;
  }

  @Override
  public void append(String path, ByteBuf data, Fence fence) throws IOException {
    checkFence(fence);
    Path file = resolve(path);
    for (int attempt = 0; ; attempt++) {
      FileChannel channel = appendChannel(file);
      try {
        synchronized (channel) {
          writeFully(channel, data);
          channel.force(false);
        }
        return;
      } catch (java.nio.channels.ClosedChannelException e) {
        // Closed to stay under the open-file limit between lookup and write; nothing was written.
        if (attempt >= 2) {
          throw e;
        }
      }
    }
  }

  private FileChannel appendChannel(Path file) throws IOException {
    FileChannel channel = appendChannels.get(file);
    if (channel != null && channel.isOpen()) {
      return channel;
    }
    synchronized (appendChannels) {
      channel = appendChannels.get(file);
      if (channel != null && channel.isOpen()) {
        return channel;
      }
      boolean existed = Files.exists(file);
      Files.createDirectories(file.getParent());
      channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      if (!existed) {
        syncDirectory(file.getParent());
      }
      if (appendChannels.size() >= MAX_OPEN_FILES) {
        Path victim = appendChannels.keySet().iterator().next();
        closeAppendChannel(victim);
      }
      appendChannels.put(file, channel);
      return channel;
    }
  }

  private static void writeFully(FileChannel channel, ByteBuf data) throws IOException {
    if (!data.isReadable()) {
      return;
    }
    // One gathering write for a composite buffer rather than one write per component.
    ByteBuffer[] parts = data.nioBuffers(data.readerIndex(), data.readableBytes());
    ByteBuffer last = parts[parts.length - 1];
    while (last.hasRemaining()) {
      channel.write(parts);
    }
  }

  @Override
  public void put(String path, ByteBuf data, Fence fence) throws IOException {
    checkFence(fence);
    Path file = resolve(path);
    Files.createDirectories(file.getParent());
    Path temp =
        file.resolveSibling(
            file.getFileName()
                + ".tmp-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    try (FileChannel channel =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      writeFully(channel, data);
      channel.force(true);
    }
    closeAppendChannel(file);
    try {
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
    syncDirectory(file.getParent());
  }

  @Override
  public ByteBuf read(String path, long position, int length) throws IOException {
    Path file = resolve(path);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      int n = (int) Math.max(0, Math.min(length, size - position));
      ByteBuf out = allocator.ioBuffer(n);
      try {
        long at = position;
        while (out.writerIndex() < n) {
          int read = out.writeBytes(channel, at, n - out.writerIndex());
          if (read < 0) {
            break;
          }
          at += read;
        }
        return out;
      } catch (IOException | RuntimeException e) {
        out.release();
        throw e;
      }
    }
  }

  @Override
  public Optional<ObjectInfo> stat(String path) throws IOException {
    Path file = resolve(path);
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      String name = file.equals(root) ? "" : file.getFileName().toString();
      return Optional.of(new ObjectInfo(name, a.isDirectory(), a.isDirectory() ? 0 : a.size()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public List<ObjectInfo> list(String directory) throws IOException {
    Path dir = resolve(directory);
    List<ObjectInfo> out = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path p : stream) {
        String name = p.getFileName().toString();
        if (name.contains(".tmp-") || name.equals(EPOCH_FILE)) {
          continue;
        }
        try {
          BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
          out.add(new ObjectInfo(name, a.isDirectory(), a.isDirectory() ? 0 : a.size()));
        } catch (NoSuchFileException e) {
          // deleted while listing
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    out.sort(Comparator.comparing(ObjectInfo::name));
    return out;
  }

  @Override
  public void delete(String path) throws IOException {
    Path target = resolve(path);
    if (!Files.exists(target)) {
      return;
    }
    String prefix = path.endsWith("/") ? path : path + "/";
    epochs.keySet().removeIf(dir -> dir.equals(path) || dir.startsWith(prefix));
    Files.walkFileTree(
        target,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            closeAppendChannel(file);
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
    if (!target.equals(root)) {
      syncDirectory(target.getParent());
    }
  }

  @Override
  public long claim(String directory, long epoch) throws IOException {
    synchronized (epochs) {
      long current = recordedEpoch(directory);
      if (epoch > current) {
        byte[] text = Long.toString(epoch).getBytes(StandardCharsets.US_ASCII);
        put(directory + "/" + EPOCH_FILE, io.netty.buffer.Unpooled.wrappedBuffer(text), null);
        epochs.put(directory, epoch);
        return epoch;
      }
      return current;
    }
  }

  private long recordedEpoch(String directory) throws IOException {
    Long cached = epochs.get(directory);
    if (cached != null) {
      return cached;
    }
    Path file = resolve(directory + "/" + EPOCH_FILE);
    long value = -1;
    if (Files.exists(file)) {
      String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
      try {
        value = Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw new IOException("corrupt owner epoch in " + file + ": '" + text + "'", e);
      }
    }
    epochs.put(directory, value);
    return value;
  }

  private void checkFence(Fence fence) throws IOException {
    if (fence == null) {
      return;
    }
    long recorded = recordedEpoch(fence.directory());
    if (recorded != fence.epoch()) {
      throw new FencedException(
          fence.directory() + " is owned with epoch " + recorded + ", not " + fence.epoch());
    }
  }

  private void closeAppendChannel(Path file) throws IOException {
    FileChannel channel = appendChannels.remove(file);
    if (channel != null) {
      channel.close();
    }
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some filesystems cannot fsync a directory; the data itself was fsync'd.
    }
  }

  @Override
  public String describe() {
    return "local:" + root;
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    if (lock != null) {
      try {
        lock.close(); // releases the lock
      } catch (IOException e) {
        first = e;
      }
      lock = null;
    }
    for (FileChannel channel : appendChannels.values()) {
      try {
        channel.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    appendChannels.clear();
    if (first != null) {
      throw first;
    }
  }
}
