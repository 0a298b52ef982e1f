package io.kelp.gateway.api;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** Runs handler work that may block on the broker's blocking executor. */
public final class Blocking {
  private Blocking() {}

  /**
   * Runs {@code work} on {@code executor}; the future completes with its result, or exceptionally
   * with what it threw (or with the rejection, when the broker is shutting down).
   */
  public static <T> CompletableFuture<T> run(Executor executor, Callable<T> work) {
    CompletableFuture<T> future = new CompletableFuture<>();
    try {
      executor.execute(() -> completeWith(future, work));
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  /**
   * Completes {@code future} with what {@code work} returns, or exceptionally with what it threw.
   */
  static <T> void completeWith(CompletableFuture<T> future, Callable<T> work) {
    try {
      future.complete(work.call());
    } catch (Throwable t) {
      future.completeExceptionally(t);
    }
  }
}
