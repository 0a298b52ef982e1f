package io.kelp.gateway.api;

import io.kelp.engine.LogThrottle;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a group request with a bound on how long its client waits, as Kafka bounds its group
 * coordinator's writes (offsets.commit.timeout.ms). A group's requests wait for one another (its
 * lane, its monitor), and a write of the group to the store retries while the store does not
 * answer; a client would wait as long, and its own request timeout (30 s for the Java consumer)
 * would close the connection under every other request on it. Once the bound has passed, the client
 * gets the request's answer for "coordinator not available" (Kafka's answer for a write that timed
 * out), which every client retries after finding the coordinator again.
 *
 * <p>A request answered so before it started is dropped when its turn comes: the client was told it
 * failed, and retries. One that had started goes on (a write cannot be called back halfway), and
 * may still take effect, as a timed-out write may in Kafka; a retry queues behind it in the group's
 * lane, so the last request a client sent is the last applied.
 */
public final class BoundedGroupRequest {
  private static final Logger LOG = LoggerFactory.getLogger(BoundedGroupRequest.class);

  private static final ScheduledThreadPoolExecutor DEADLINES = deadlines();

  /** Requests answered late: one line about them every 10 s at most. */
  private static final LogThrottle LATE_ANSWERS = new LogThrottle(Duration.ofSeconds(10));

  private BoundedGroupRequest() {}

  private static ScheduledThreadPoolExecutor deadlines() {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "kelp-group-deadline");
              t.setDaemon(true);
              return t;
            });
    // Nearly every request ends in time: its deadline leaves the queue then, not 5 s later.
    e.setRemoveOnCancelPolicy(true);
    return e;
  }

  /**
   * Runs {@code work} on {@code executor}; the future completes with its result, or exceptionally
   * with what it threw (or the rejection, when the broker is shutting down), or, once {@code
   * boundMs} have passed without either, with {@code late}'s answer.
   *
   * @param what the request, for the log line
   * @param groupId its group, for the log line (null for a request that spans groups)
   */
  public static <T> CompletableFuture<T> run(
      Executor executor,
      long boundMs,
      String what,
      String groupId,
      Callable<T> work,
      Supplier<T> late) {
    CompletableFuture<T> future = new CompletableFuture<>();
    try {
      executor.execute(
          () -> {
            if (!future.isDone()) { // else answered already: the client retries it
              Blocking.completeWith(future, work);
            }
          });
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(e);
      return future;
    }
    if (!future.isDone()) {
      ScheduledFuture<?> deadline =
          DEADLINES.schedule(
              () -> answerLate(future, what, groupId, boundMs, late),
              boundMs,
              TimeUnit.MILLISECONDS);
      future.whenComplete((answer, failure) -> deadline.cancel(false));
    }
    return future;
  }

  private static <T> void answerLate(
      CompletableFuture<T> future, String what, String groupId, long boundMs, Supplier<T> late) {
    if (future.isDone()) {
      return;
    }
    T answer;
    try {
      answer = late.get();
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
      return;
    }
    if (future.complete(answer)) {
      noteLate(what, groupId, boundMs);
    }
  }

  /** The request's description is built only here, for the rare request answered late. */
  private static void noteLate(String what, String groupId, long boundMs) {
    long count = LATE_ANSWERS.count();
    if (count == 0) {
      return;
    }
    LOG.warn(
        "{} was not done after {} ms (its group waits on the store); answered"
            + " COORDINATOR_NOT_AVAILABLE, which clients retry ({} request(s) answered so since"
            + " the last such line)",
        groupId == null ? what : what + " of group " + groupId,
        boundMs,
        count);
  }
}
