package io.kelp.gateway.coordinator.consumer;

import io.kelp.gateway.coordinator.GroupCoordinator;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fences the members of a consumer group that miss a deadline: their session timeout, or their
 * rebalance timeout while they have partitions to revoke. Each member has one task on the
 * coordinator's timer, armed for its nearest deadline; the task takes the group's monitor itself.
 * Every other method is called under the monitor.
 */
final class MemberTimeouts {
  // The group's story is told by one logger, whichever class tells it.
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroup.class);

  private final ConsumerGroup group;
  private final GroupCoordinator coordinator;
  private final Map<String, ScheduledFuture<?>> timers = new HashMap<>();

  MemberTimeouts(ConsumerGroup group, GroupCoordinator coordinator) {
    this.group = group;
    this.coordinator = coordinator;
  }

  /**
   * Fences every member whose session timed out or that did not revoke partitions within its
   * rebalance timeout. Returns true when a member was fenced.
   */
  boolean expire() {
    long now = coordinator.nowMs();
    boolean fenced = false;
    for (ConsumerGroupMember m : List.copyOf(group.members.values())) {
      if (now >= m.sessionDeadlineMs) {
        LOG.info("Group {}: {} fenced, its session timed out", group.groupId(), m);
        group.fence(m);
        fenced = true;
      } else if (now >= m.revocationDeadlineMs) {
        LOG.info("Group {}: {} fenced, it did not revoke partitions in time", group.groupId(), m);
        group.fence(m);
        fenced = true;
      }
    }
    return fenced;
  }

  /** (Re)arms the timer that checks this member's deadlines. */
  void schedule(ConsumerGroupMember m) {
    cancel(m.memberId);
    long at = Math.min(m.sessionDeadlineMs, m.revocationDeadlineMs);
    long delay = Math.max(0, at - coordinator.nowMs());
    timers.put(
        m.memberId, coordinator.timer().schedule(this::onTimer, delay + 1, TimeUnit.MILLISECONDS));
  }

  /** Stops the timer of a member that left the group. */
  void cancel(String memberId) {
    ScheduledFuture<?> f = timers.remove(memberId);
    if (f != null) {
      f.cancel(false);
    }
  }

  /** Stops every timer: the group is gone. */
  void cancelAll() {
    timers.values().forEach(f -> f.cancel(false));
    timers.clear();
  }

  private void onTimer() {
    if (coordinator.writing(group.groupId())) {
      // The group's monitor is held until the store answers: try again soon instead of holding a
      // timer thread. Running early is harmless, as expire() checks every deadline.
      try {
        coordinator
            .timer()
            .schedule(this::onTimer, GroupCoordinator.BUSY_RETRY_MS, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closed) {
        // closing
      }
      return;
    }
    synchronized (group) {
      if (group.isDead()) {
        return;
      }
      try {
        if (expire()) {
          group.persist();
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("Group {}: writing its state after fencing members failed", group.groupId(), e);
      }
    }
  }
}
