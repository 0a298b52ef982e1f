package io.kelp.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts occurrences of something worth a log line, and says when to write one: at most once per
 * period, with how many occurrences there were since the last line. For conditions that repeat for
 * as long as they last (a slow filer, a stuck group), so that the log says so without a line per
 * request.
 */
public final class LogThrottle {
  private final long periodNanos;
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong quietUntil = new AtomicLong(System.nanoTime());

  public LogThrottle(Duration period) {
    this.periodNanos = period.toNanos();
  }

  /**
   * Counts one occurrence; returns how many to report in a line now (this one included), or 0 while
   * the last line is more recent than the period. Only one of callers racing gets the count.
   */
  public long count() {
    long n = count.incrementAndGet();
    long now = System.nanoTime();
    long until = quietUntil.get();
    if (now - until < 0 || !quietUntil.compareAndSet(until, now + periodNanos)) {
      return 0;
    }
    count.addAndGet(-n);
    return n;
  }
}
