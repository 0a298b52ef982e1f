package io.kelp.gateway.api.heartbeat;

import io.kelp.codec.message.HeartbeatRequest;
import io.kelp.codec.message.HeartbeatResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import java.util.concurrent.CompletableFuture;

/**
 * Heartbeat (key 12), versions 0-4: keeps a classic group member's session alive and tells it when
 * the group rebalances (REBALANCE_IN_PROGRESS). v3+ static membership. Unknown groups are
 * UNKNOWN_MEMBER_ID.
 */
public final class HeartbeatHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 12;
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
    HeartbeatRequest r = (HeartbeatRequest) request;
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return CompletableFuture.completedFuture(
          new HeartbeatResponse().setErrorCode(Errors.INVALID_GROUP_ID));
    }
    if (ctx.broker().groups().loading(r.groupId())) {
      return CompletableFuture.completedFuture(
          new HeartbeatResponse().setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS));
    }
    return ctx.broker()
        .groupRequest(
            r.groupId(),
            "Heartbeat",
            () -> {
              ClassicGroup group =
                  ClassicGroups.getOrCreate(ctx.broker().groups(), r.groupId(), false);
              short error =
                  group == null
                      ? Errors.UNKNOWN_MEMBER_ID
                      : group.heartbeat(r.memberId(), r.groupInstanceId(), r.generationId());
              return (ApiMessage) new HeartbeatResponse().setErrorCode(error);
            },
            () -> new HeartbeatResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
  }
}
