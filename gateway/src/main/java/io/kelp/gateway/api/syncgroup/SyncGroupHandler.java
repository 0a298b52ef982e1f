package io.kelp.gateway.api.syncgroup;

import io.kelp.codec.message.SyncGroupRequest;
import io.kelp.codec.message.SyncGroupRequest.SyncGroupRequestAssignment;
import io.kelp.codec.message.SyncGroupResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * SyncGroup (key 14), versions 0-5: members of a classic group fetch their assignment; the leader's
 * request carries everyone's, which is stored before anyone gets theirs. v3+ static membership; v5
 * checks the protocol type and name. Unknown groups are UNKNOWN_MEMBER_ID.
 */
public final class SyncGroupHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 14;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    SyncGroupRequest r = (SyncGroupRequest) request;
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return CompletableFuture.completedFuture(
          new SyncGroupResponse().setErrorCode(Errors.INVALID_GROUP_ID));
    }
    if (ctx.broker().groups().loading(r.groupId())) {
      return CompletableFuture.completedFuture(
          new SyncGroupResponse().setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS));
    }
    Map<String, byte[]> assignments = new HashMap<>();
    for (SyncGroupRequestAssignment a : r.assignments()) {
      assignments.put(a.memberId(), a.assignment());
    }
    return ctx.broker()
        .groupRequest(
            r.groupId(),
            "SyncGroup",
            () -> {
              ClassicGroup group =
                  ClassicGroups.getOrCreate(ctx.broker().groups(), r.groupId(), false);
              if (group == null) {
                return CompletableFuture.completedFuture(
                    new SyncGroupResponse().setErrorCode(Errors.UNKNOWN_MEMBER_ID));
              }
              return group.sync(
                  r.memberId(),
                  r.groupInstanceId(),
                  r.generationId(),
                  r.protocolType(),
                  r.protocolName(),
                  assignments);
            },
            // Bounds the wait for the group, not a follower's wait for the leader's assignment.
            () ->
                CompletableFuture.completedFuture(
                    new SyncGroupResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE)))
        .thenCompose(f -> f)
        .thenApply(response -> (ApiMessage) response);
  }
}
