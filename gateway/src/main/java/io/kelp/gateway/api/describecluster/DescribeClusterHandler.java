package io.kelp.gateway.api.describecluster;

import io.kelp.codec.message.DescribeClusterRequest;
import io.kelp.codec.message.DescribeClusterResponse;
import io.kelp.codec.message.DescribeClusterResponse.DescribeClusterBroker;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.AclOperations;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.server.HostPort;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeCluster (key 60), versions 0-2: the cluster id, this broker as controller, and this
 * broker (rack null; never fenced, so v2's IncludeFencedBrokers changes nothing). Asking for
 * controller endpoints (v1 endpoint type 2) is UNSUPPORTED_ENDPOINT_TYPE, as a Kafka broker
 * answers.
 */
public final class DescribeClusterHandler implements ApiHandler {
  private static final byte BROKERS = 1;

  @Override
  public short apiKey() {
    return 60;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    DescribeClusterRequest r = (DescribeClusterRequest) request;
    BrokerServices b = ctx.broker();
    DescribeClusterResponse response =
        new DescribeClusterResponse().setClusterId(b.clusterId()).setEndpointType(BROKERS);
    if (ctx.apiVersion() >= 1 && r.endpointType() != BROKERS) {
      return CompletableFuture.completedFuture(
          response
              .setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE)
              .setErrorMessage("The request was sent to a broker, not a controller")
              .setEndpointType(r.endpointType()));
    }
    HostPort self = b.advertised();
    response
        .setControllerId(b.brokerId())
        .brokers()
        .add(
            new DescribeClusterBroker()
                .setBrokerId(b.brokerId())
                .setHost(self.host())
                .setPort(self.port()));
    if (r.includeClusterAuthorizedOperations()) {
      response.setClusterAuthorizedOperations(AclOperations.CLUSTER);
    }
    return CompletableFuture.completedFuture(response);
  }
}
