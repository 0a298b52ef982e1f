package io.kelp.gateway.pipeline;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.metrics.KelpMetrics;
import io.kelp.gateway.server.BrokerConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A Metadata handler for pipeline tests: each request's answer is a future it adds to {@code
 * calls}, for the test to complete when and on what thread it likes.
 */
final class ControlledMetadata implements ApiHandler {
  private final List<CompletableFuture<ApiMessage>> calls;

  ControlledMetadata(List<CompletableFuture<ApiMessage>> calls) {
    this.calls = calls;
  }

  /** The broker services a pipeline needs, with frames up to {@code maxFrame} bytes. */
  static BrokerServices services(int maxFrame) {
    BrokerConfig config =
        BrokerConfig.of(Map.of(BrokerConfig.SOCKET_REQUEST_MAX_BYTES, Integer.toString(maxFrame)));
    return new BrokerServices(
        config, "cluster", null, null, null, Runnable::run, new KelpMetrics(), () -> 0L);
  }

  @Override
  public short apiKey() {
    return 3;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 12;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    CompletableFuture<ApiMessage> f = new CompletableFuture<>();
    calls.add(f);
    return f;
  }
}
