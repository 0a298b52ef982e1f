package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File ids assigned ahead of the uploads that will use them, per directory, several per assignment.
 * Assigning (the filer asks the master) costs about as much as uploading a chunk, and every durable
 * append needs a fresh id; taking it from here and assigning more in the background takes that
 * round trip off the append's path. One assignment of {@code count} ids reserves the needle keys
 * {@code key .. key + count - 1} with one cookie: id {@code i} is uploaded as {@code <fid>_<i>}
 * (the form the volume server and its access tokens expect) and recorded in the filer with its own
 * key, as {@code <volume>,<key + i><cookie>}. Ids are assigned with the directory's path so the
 * filer's per-path rules apply as they would to an assignment made at upload time. An id older than
 * {@link #MAX_AGE_NANOS} is not used (a volume may have filled or a token expired meanwhile); an id
 * that fails anyway is simply not retried, since the store assigns anew on a failed upload.
 */
final class FileIdPool implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FileIdPool.class);
  private static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final int MAX_DIRECTORIES = 1024;

  /** Assigns {@code count} consecutive file ids for a directory. */
  interface Assigner {
    AssignVolumeResponse assign(String directory, int count) throws IOException;
  }

  /** One id: {@code uploadId} in the volume server's URL, {@code fileId} in the filer entry. */
  record FileId(String uploadId, String fileId, String url, String auth) {
    static FileId of(AssignVolumeResponse response, int delta) {
      String base = response.getFileId();
      return new FileId(
          delta == 0 ? base : base + "_" + delta,
          delta == 0 ? base : withDelta(base, delta),
          response.getLocation().getUrl(),
          response.getAuth());
    }
  }

  /** The ids of one assignment not handed out yet. */
  private static final class Batch {
    final AssignVolumeResponse response;
    final long atNanos;
    final int count;
    int next;

    Batch(AssignVolumeResponse response, long atNanos) {
      this.response = response;
      this.atNanos = atNanos;
      this.count = Math.max(1, response.getCount());
    }

    int left() {
      return count - next;
    }
  }

  private final Assigner assigner;
  private final int batchSize;
  private final ExecutorService background =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "kelp-seaweed-assign");
            t.setDaemon(true);
            return t;
          });

  /** Directories whose top-up is queued or running. Guarded by {@link #ready}. */
  private final Set<String> refilling = new HashSet<>();

  private final AtomicLong refills = new AtomicLong();
  private final AtomicLong toppedUp = new AtomicLong();

  private final Map<String, ArrayDeque<Batch>> ready =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<Batch>> eldest) {
          return size() > MAX_DIRECTORIES;
        }
      };

  /**
   * @param batchSize how many ids one assignment asks for; the pool assigns more once fewer than
   *     half of that are left for a directory
   */
  FileIdPool(Assigner assigner, int batchSize) {
    this.assigner = assigner;
    this.batchSize = Math.max(1, batchSize);
  }

  /**
   * A file id for a chunk in {@code directory}: a ready one if there is a fresh one, else one
   * assigned now. Either way the directory's supply is topped up in the background.
   */
  FileId take(String directory) throws IOException {
    FileId found = null;
    boolean refill;
    synchronized (ready) {
      ArrayDeque<Batch> q = ready.computeIfAbsent(directory, d -> new ArrayDeque<>());
      long now = System.nanoTime();
      while (!q.isEmpty() && found == null) {
        Batch b = q.peekFirst();
        if (now - b.atNanos >= MAX_AGE_NANOS || b.left() == 0) {
          q.pollFirst();
          continue;
        }
        found = FileId.of(b.response, b.next++);
      }
      // the background thread is woken only when the supply runs low, once per top-up
      refill = left(q) * 2 <= batchSize && refilling.add(directory);
    }
    if (refill) {
      refill(directory);
    }
    return found != null ? found : FileId.of(assigner.assign(directory, 1), 0);
  }

  /** Top-ups handed to the background thread so far, for tests. */
  long refills() {
    return refills.get();
  }

  /** Top-ups the background thread has ended, for tests. */
  long toppedUp() {
    return toppedUp.get();
  }

  private void refill(String directory) {
    refills.incrementAndGet();
    try {
      background.execute(
          () -> {
            try {
              topUp(directory);
            } finally {
              synchronized (ready) {
                refilling.remove(directory);
              }
              toppedUp.incrementAndGet();
            }
          });
    } catch (RejectedExecutionException closed) {
      // closing: nothing more to prepare
      synchronized (ready) {
        refilling.remove(directory);
      }
    }
  }

  private void topUp(String directory) {
    while (true) {
      synchronized (ready) {
        ArrayDeque<Batch> q = ready.get(directory);
        if (q == null || left(q) * 2 > batchSize) {
          return;
        }
      }
      AssignVolumeResponse response;
      try {
        response = assigner.assign(directory, batchSize);
      } catch (IOException | RuntimeException e) {
        log.debug("assigning ahead for {} failed; appends will assign themselves", directory, e);
        return;
      }
      synchronized (ready) {
        ArrayDeque<Batch> q = ready.get(directory);
        if (q == null) {
          return;
        }
        q.addLast(new Batch(response, System.nanoTime()));
      }
    }
  }

  private static int left(ArrayDeque<Batch> q) {
    long now = System.nanoTime();
    int n = 0;
    for (Batch b : q) {
      if (now - b.atNanos < MAX_AGE_NANOS) {
        n += b.left();
      }
    }
    return n;
  }

  /**
   * The file id {@code delta} needle keys after {@code fileId} ({@code <volume>,<key><cookie>} in
   * hex, the cookie being the last 8 digits), written as SeaweedFS writes ids: the 8-byte key and
   * 4-byte cookie in hex without leading zero bytes of the key.
   */
  static String withDelta(String fileId, int delta) {
    int comma = fileId.indexOf(',');
    String keyCookie = fileId.substring(comma + 1);
    if (comma <= 0 || keyCookie.length() <= 8 || keyCookie.length() > 24) {
      throw new IllegalArgumentException("not a SeaweedFS file id: " + fileId);
    }
    int split = keyCookie.length() - 8;
    long key = Long.parseUnsignedLong(keyCookie.substring(0, split), 16) + delta;
    String cookie = keyCookie.substring(split).toLowerCase(Locale.ROOT);
    // The key's hex digits without leading zero bytes: an even number of digits.
    String keyHex = Long.toHexString(key);
    if (key == 0) {
      keyHex = "";
    } else if ((keyHex.length() & 1) == 1) {
      keyHex = "0" + keyHex;
    }
    return fileId.substring(0, comma + 1) + keyHex + cookie;
  }

  @Override
  public void close() {
    background.shutdownNow();
  }
}
