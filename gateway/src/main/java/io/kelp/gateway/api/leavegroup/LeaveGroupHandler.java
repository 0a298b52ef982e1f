package io.kelp.gateway.api.leavegroup;

import io.kelp.codec.message.LeaveGroupRequest;
import io.kelp.codec.message.LeaveGroupRequest.MemberIdentity;
import io.kelp.codec.message.LeaveGroupResponse;
import io.kelp.codec.message.LeaveGroupResponse.MemberResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicGroup.Leaving;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * LeaveGroup (key 13), versions 0-5: members leave a classic group, which then rebalances. v0-2
 * name one member; v3+ a batch, each with its own result, static members by instance id (the admin
 * client's removeMembersFromConsumerGroup sends an empty member id); v5 a reason per member. An
 * unknown group is UNKNOWN_MEMBER_ID.
 */
public final class LeaveGroupHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 13;
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
    LeaveGroupRequest r = (LeaveGroupRequest) request;
    short version = ctx.apiVersion();
    List<Leaving> leaving = new ArrayList<>();
    if (version < 3) {
      leaving.add(new Leaving(r.memberId(), null, null));
    } else {
      for (MemberIdentity m : r.members()) {
        leaving.add(new Leaving(m.memberId(), m.groupInstanceId(), m.reason()));
      }
    }
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return CompletableFuture.completedFuture(
          new LeaveGroupResponse().setErrorCode(Errors.INVALID_GROUP_ID));
    }
    if (ctx.broker().groups().loading(r.groupId())) {
      return CompletableFuture.completedFuture(
          new LeaveGroupResponse().setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS));
    }
    return ctx.broker()
        .groupRequest(
            r.groupId(),
            "LeaveGroup",
            () -> {
              ClassicGroup group =
                  ClassicGroups.getOrCreate(ctx.broker().groups(), r.groupId(), false);
              if (group == null) {
                return new LeaveGroupResponse().setErrorCode(Errors.UNKNOWN_MEMBER_ID);
              }
              List<Short> results = group.leave(leaving);
              if (results == null) {
                return new LeaveGroupResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE);
              }
              return (ApiMessage) respond(version, leaving, results);
            },
            () -> new LeaveGroupResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
  }

  private static LeaveGroupResponse respond(
      short version, List<Leaving> leaving, List<Short> results) {
    LeaveGroupResponse response = new LeaveGroupResponse();
    if (version < 3) {
      return response.setErrorCode(results.get(0));
    }
    for (int i = 0; i < leaving.size(); i++) {
      response
          .members()
          .add(
              new MemberResponse()
                  .setMemberId(leaving.get(i).memberId())
                  .setGroupInstanceId(leaving.get(i).groupInstanceId())
                  .setErrorCode(results.get(i)));
    }
    return response;
  }
}
