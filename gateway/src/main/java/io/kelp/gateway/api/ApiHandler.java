package io.kelp.gateway.api;

import io.kelp.codec.wire.ApiMessage;
import java.util.concurrent.CompletableFuture;

/**
 * Serves one Kafka API. Handlers translate between Kafka messages and the broker's services; they
 * never block the network thread they are called on: anything that may block runs on {@link
 * BrokerServices#blocking()} and the handler returns a future.
 */
public interface ApiHandler {
  short apiKey();

  /** The lowest version advertised in ApiVersions. */
  short minVersion();

  /** The highest version advertised in ApiVersions and served. */
  short maxVersion();

  /**
   * The lowest version actually served; lower advertised versions close the connection (Produce
   * v0-2, advertised only for old librdkafka, as Kafka 4 does).
   */
  default short minServedVersion() {
    return minVersion();
  }

  /**
   * Handles one request. The future completes with the response body, or with null when no response
   * is to be sent (Produce with acks=0).
   */
  CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request);
}
