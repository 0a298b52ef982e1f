package io.kelp.gateway.api;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs each group's requests one after another on a shared pool. A group's requests take its
 * monitor, which a write of the group to the store holds until the store answers; run side by side,
 * a group waiting on a slow filer would hold a pool thread for each of its members' heartbeats, and
 * with enough members every thread, holding up every other group. In a lane of its own the group
 * holds one thread and its other requests wait without one.
 */
public final class GroupLanes {
  private final Executor pool;

  /** Each group's queued requests, the running one first; guarded by this. */
  private final Map<String, ArrayDeque<Runnable>> lanes = new HashMap<>();

  public GroupLanes(Executor pool) {
    this.pool = pool;
  }

  /** The executor of the lane of the group with this id (the shared pool for a null id). */
  public Executor lane(String groupId) {
    return groupId == null ? pool : task -> submit(groupId, task);
  }

  private void submit(String groupId, Runnable task) {
    boolean start;
    synchronized (this) {
      ArrayDeque<Runnable> queue = lanes.get(groupId);
      start = queue == null;
      if (start) {
        queue = new ArrayDeque<>();
        lanes.put(groupId, queue);
      }
      queue.add(task);
    }
    if (start) {
      try {
        pool.execute(() -> drain(groupId));
      } catch (RejectedExecutionException e) {
        synchronized (this) {
          lanes.remove(groupId);
        }
        throw e;
      }
    }
  }

  /** Runs the lane's first request, then hands the next one, if any, to the pool. */
  private void drain(String groupId) {
    Runnable next;
    synchronized (this) {
      next = lanes.get(groupId).peek();
    }
    try {
      next.run();
    } finally {
      boolean more;
      synchronized (this) {
        ArrayDeque<Runnable> queue = lanes.get(groupId);
        queue.poll();
        more = !queue.isEmpty();
        if (!more) {
          lanes.remove(groupId);
        }
      }
      if (more) {
        try {
          // Back to the pool's queue rather than run here, so that other groups get their turn.
          pool.execute(() -> drain(groupId));
        } catch (RejectedExecutionException closing) {
          synchronized (this) {
            lanes.remove(groupId);
          }
        }
      }
    }
  }

  /** Groups with requests queued or running, for tests. */
  synchronized int busyLanes() {
    return lanes.size();
  }
}
