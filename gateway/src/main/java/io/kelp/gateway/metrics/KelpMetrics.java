package io.kelp.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The broker's meters, in a Prometheus registry: requests and their latency per API, network bytes
 * in and out, open connections, and the engine's unflushed bytes. Meters are looked up once per API
 * key and cached, so recording costs no map lookup.
 */
public final class KelpMetrics {
  private static final int MAX_KEY = 128;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Counter[] requests = new Counter[MAX_KEY];
  private final Timer[] latency = new Timer[MAX_KEY];
  private final Counter bytesIn;
  private final Counter bytesOut;
  private final AtomicInteger connections = new AtomicInteger();

  public KelpMetrics() {
    bytesIn =
        Counter.builder("kelp.network.bytes.in")
            .description("Request bytes received")
            .baseUnit("bytes")
            .register(registry);
    bytesOut =
        Counter.builder("kelp.network.bytes.out")
            .description("Response bytes sent")
            .baseUnit("bytes")
            .register(registry);
    registry.gauge("kelp.connections", connections);
  }

  /** Reports {@code pendingBytes} as the engine's unflushed bytes. */
  public void engineGauge(LongSupplier pendingBytes) {
    io.micrometer.core.instrument.Gauge.builder(
            "kelp.engine.pending.bytes", pendingBytes, s -> (double) s.getAsLong())
        .description("Appended bytes not yet durable in the store")
        .register(registry);
  }

  /**
   * Reports a stage of the store's writes (such as {@code upload} or {@code commit}) as a timer
   * {@code kelp.store.write} tagged with the stage, from counters the store keeps.
   */
  public <T> void storeStage(
      String stage, T source, ToLongFunction<T> count, ToDoubleFunction<T> totalNanos) {
    FunctionTimer.builder("kelp.store.write", source, count, totalNanos, TimeUnit.NANOSECONDS)
        .description("Time the store spends writing, by stage")
        .tag("stage", stage)
        .register(registry);
  }

  /** A counter of the store's that {@code value} reads from {@code source}. */
  public <T> void storeCounter(
      String name, String description, T source, ToDoubleFunction<T> value) {
    FunctionCounter.builder(name, source, value).description(description).register(registry);
  }

  /** Counts one request of {@code apiName} that took {@code nanos} to complete. */
  public void request(short apiKey, String apiName, long nanos) {
    if (apiKey < 0 || apiKey >= MAX_KEY) {
      return;
    }
    Counter c = requests[apiKey];
    Timer t = latency[apiKey];
    if (c == null || t == null) {
      synchronized (this) {
        c =
            Counter.builder("kelp.requests")
                .description("Requests handled, by API")
                .tag("api", apiName)
                .register(registry);
        t =
            Timer.builder("kelp.request.latency")
                .description("Time from a request's arrival to its response, by API")
                .tag("api", apiName)
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        requests[apiKey] = c;
        latency[apiKey] = t;
      }
    }
    c.increment();
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void bytesIn(long n) {
    bytesIn.increment(n);
  }

  public void bytesOut(long n) {
    bytesOut.increment(n);
  }

  public void connectionOpened() {
    connections.incrementAndGet();
  }

  public void connectionClosed() {
    connections.decrementAndGet();
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }
}
