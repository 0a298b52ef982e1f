package io.kelp.gateway.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.gateway.server.HostPort;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class MetricsServerTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(HostPort at, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://" + at + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesPrometheusTextAndHealth() throws Exception {
    KelpMetrics metrics = new KelpMetrics();
    metrics.request((short) 0, "Produce", 1_000_000);
    metrics.bytesIn(100);
    AtomicBoolean serving = new AtomicBoolean(true);
    try (MetricsServer server =
        MetricsServer.start(new HostPort("127.0.0.1", 0), metrics, serving::get)) {
      HostPort at = server.address();
      HttpResponse<String> m = get(at, "/metrics");
      assertEquals(200, m.statusCode());
      assertTrue(m.body().contains("kelp_requests_total{api=\"Produce\"} 1.0"), m.body());
      assertTrue(m.body().contains("kelp_network_bytes_in_bytes_total 100.0"), m.body());
      assertTrue(m.body().contains("kelp_request_latency_seconds"), m.body());
      HttpResponse<String> h = get(at, "/health");
      assertEquals(200, h.statusCode());
      assertEquals("ok\n", h.body());
      serving.set(false);
      assertEquals(503, get(at, "/health").statusCode());
    }
  }
}
