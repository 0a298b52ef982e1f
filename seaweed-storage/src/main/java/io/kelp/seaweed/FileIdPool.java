package io.kelp.seaweed;

import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File ids assigned ahead of the uploads that will use them, per directory. Assigning one (the
 * filer asks the master) costs about as much as uploading a chunk, and every durable append needs a
 * fresh one; taking it from here and assigning its successor in the background takes that round
 * trip off the append's path. Ids are assigned with the directory's path so the filer's per-path
 * rules apply as they would to an assignment made at upload time. An id older than {@link
 * #MAX_AGE_NANOS} is not used (a volume may have filled or a token expired meanwhile); an id that
 * fails anyway is simply not retried, since the store assigns anew on a failed upload.
 */
final class FileIdPool implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FileIdPool.class);
  private static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final int MAX_DIRECTORIES = 1024;

  /** Assigns a file id for a directory. */
  interface Assigner {
    AssignVolumeResponse assign(String directory) throws IOException;
  }

  private record Assigned(AssignVolumeResponse response, long atNanos) {}

  private final Assigner assigner;
  private final int depth;
  private final ExecutorService background =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "kelp-seaweed-assign");
            t.setDaemon(true);
            return t;
          });
  private final Map<String, ArrayDeque<Assigned>> ready =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<Assigned>> eldest) {
          return size() > MAX_DIRECTORIES;
        }
      };

  /**
   * @param depth how many ids to keep ready per directory
   */
  FileIdPool(Assigner assigner, int depth) {
    this.assigner = assigner;
    this.depth = depth;
  }

  /**
   * A file id for a chunk in {@code directory}: a ready one if there is a fresh one, else one
   * assigned now. Either way the directory's supply is topped up in the background.
   */
  AssignVolumeResponse take(String directory) throws IOException {
    Assigned found = null;
    synchronized (ready) {
      ArrayDeque<Assigned> q = ready.computeIfAbsent(directory, d -> new ArrayDeque<>());
      long now = System.nanoTime();
      while (!q.isEmpty() && found == null) {
        Assigned a = q.pollFirst();
        if (now - a.atNanos < MAX_AGE_NANOS) {
          found = a;
        }
      }
    }
    refill(directory);
    return found != null ? found.response : assigner.assign(directory);
  }

  private void refill(String directory) {
    try {
      background.execute(() -> topUp(directory));
    } catch (RejectedExecutionException closed) {
      // closing: nothing more to prepare
    }
  }

  private void topUp(String directory) {
    while (true) {
      synchronized (ready) {
        ArrayDeque<Assigned> q = ready.get(directory);
        if (q == null || q.size() >= depth) {
          return;
        }
      }
      AssignVolumeResponse response;
      try {
        response = assigner.assign(directory);
      } catch (IOException | RuntimeException e) {
        log.debug("assigning ahead for {} failed; appends will assign themselves", directory, e);
        return;
      }
      synchronized (ready) {
        ArrayDeque<Assigned> q = ready.get(directory);
        if (q == null) {
          return;
        }
        q.addLast(new Assigned(response, System.nanoTime()));
      }
    }
  }

  @Override
  public void close() {
    background.shutdownNow();
  }
}
