package io.kelp.gateway.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kelp.gateway.server.HostPort;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The admin HTTP endpoint: {@code /metrics} in Prometheus text format and {@code /health}, which
 * answers 200 "ok" while the broker serves clients and 503 otherwise.
 */
public final class MetricsServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;

  private MetricsServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  public static MetricsServer start(HostPort listen, KelpMetrics metrics, BooleanSupplier serving)
      throws IOException {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(listen.host(), listen.port()), 16);
    } catch (BindException e) {
      throw new BindException(
          "cannot listen for metrics on "
              + listen
              + " (--metrics-listen, metrics.listen; off disables it): "
              + e.getMessage());
    }
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "kelp-metrics-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext(
        "/metrics",
        exchange ->
            respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape()));
    server.createContext(
        "/health",
        exchange -> {
          boolean ok = serving.getAsBoolean();
          respond(exchange, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "down\n");
        });
    server.start();
    return new MetricsServer(server, executor);
  }

  private static void respond(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    try (exchange) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", type);
      boolean head = exchange.getRequestMethod().equalsIgnoreCase("HEAD");
      exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  /** The address actually bound (the port is resolved when 0 was asked for). */
  public HostPort address() {
    InetSocketAddress a = server.getAddress();
    return new HostPort(a.getHostString(), a.getPort());
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
