package io.kelp.gateway.api.findcoordinator;

import io.kelp.codec.message.FindCoordinatorRequest;
import io.kelp.codec.message.FindCoordinatorResponse;
import io.kelp.codec.message.FindCoordinatorResponse.Coordinator;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.server.HostPort;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * FindCoordinator (key 10), versions 0-4: this broker coordinates every group and every
 * transactional id, so each key is answered with this broker's advertised address. Key type 0 is a
 * group, 1 a transactional id; others (share groups, v6) are INVALID_REQUEST. v4 answers many keys
 * at once. An empty group id is INVALID_REQUEST, as in Kafka.
 */
public final class FindCoordinatorHandler implements ApiHandler {
  private static final byte GROUP = 0;
  private static final byte TRANSACTION = 1;

  @Override
  public short apiKey() {
    return 10;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    FindCoordinatorRequest r = (FindCoordinatorRequest) request;
    HostPort self = ctx.broker().advertised();
    int node = ctx.broker().brokerId();
    FindCoordinatorResponse response = new FindCoordinatorResponse();
    if (ctx.apiVersion() >= 4) {
      for (String key : r.coordinatorKeys()) {
        short error = check(r.keyType(), key);
        Coordinator c = new Coordinator().setKey(key).setErrorCode(error);
        if (error == Errors.NONE) {
          c.setNodeId(node).setHost(self.host()).setPort(self.port());
        } else {
          c.setNodeId(-1).setHost("").setPort(-1).setErrorMessage(message(error, r.keyType()));
        }
        response.coordinators().add(c);
      }
      return CompletableFuture.completedFuture(response);
    }
    short error = check(r.keyType(), r.key());
    response.setErrorCode(error);
    if (error == Errors.NONE) {
      response.setNodeId(node).setHost(self.host()).setPort(self.port());
    } else {
      response.setNodeId(-1).setHost("").setPort(-1);
      if (ctx.apiVersion() >= 1) {
        response.setErrorMessage(message(error, r.keyType()));
      }
    }
    return CompletableFuture.completedFuture(response);
  }

  private static short check(byte keyType, String key) {
    if (keyType != GROUP && keyType != TRANSACTION) {
      return Errors.INVALID_REQUEST;
    }
    return key == null || (keyType == GROUP && key.isEmpty())
        ? Errors.INVALID_REQUEST
        : Errors.NONE;
  }

  private static String message(short error, byte keyType) {
    return List.of(GROUP, TRANSACTION).contains(keyType)
        ? "the coordinator key is empty"
        : "unsupported coordinator key type " + keyType;
  }
}
