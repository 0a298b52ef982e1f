package io.kelp.gateway.api.describegroups;

import io.kelp.codec.message.DescribeGroupsRequest;
import io.kelp.codec.message.DescribeGroupsResponse;
import io.kelp.codec.message.DescribeGroupsResponse.DescribedGroup;
import io.kelp.codec.message.DescribeGroupsResponse.DescribedGroupMember;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.AclOperations;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.Group;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicGroupView;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeGroups (key 15), versions 0-6: state, protocol and members of classic groups; member
 * metadata and assignments are shown once the group is Stable, as in Kafka. Unknown groups, and
 * KIP-848 groups (described by ConsumerGroupDescribe), show state Dead; from v6 they also carry
 * GROUP_ID_NOT_FOUND with a message, as Kafka 4 answers (KIP-1043).
 */
public final class DescribeGroupsHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 15;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    DescribeGroupsRequest r = (DescribeGroupsRequest) request;
    // Off the network thread: describing a group takes its monitor, held while it writes.
    return ctx.broker()
        .groupRequest(
            r.groups().size() == 1 ? r.groups().get(0) : null,
            "DescribeGroups",
            () -> respond(ctx, r),
            () -> {
              DescribeGroupsResponse response = new DescribeGroupsResponse();
              for (String id : r.groups()) {
                response
                    .groups()
                    .add(
                        new DescribedGroup()
                            .setGroupId(id == null ? "" : id)
                            .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE)
                            .setGroupState("")
                            .setProtocolType("")
                            .setProtocolData(""));
              }
              return response;
            });
  }

  private static ApiMessage respond(RequestContext ctx, DescribeGroupsRequest r) {
    DescribeGroupsResponse response = new DescribeGroupsResponse();
    for (String id : r.groups()) {
      DescribedGroup out =
          new DescribedGroup().setGroupId(id).setProtocolType("").setProtocolData("");
      if (id == null) {
        out.setGroupId("").setErrorCode(Errors.INVALID_GROUP_ID).setGroupState("Dead");
      } else if (ctx.broker().groups().loading(id)) {
        out.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS).setGroupState("");
      } else {
        Group g = ctx.broker().groups().group(id);
        if (g instanceof ClassicGroup classic && !classic.isDead()) {
          describe(classic, out);
        } else {
          out.setGroupState("Dead");
          if (ctx.apiVersion() >= 6) {
            out.setErrorCode(Errors.GROUP_ID_NOT_FOUND)
                .setErrorMessage(
                    g == null || g.isDead()
                        ? "Group " + id + " not found."
                        : "Group " + id + " is not a classic group.");
          }
        }
      }
      if (r.includeAuthorizedOperations()) {
        out.setAuthorizedOperations(AclOperations.GROUP);
      }
      response.groups().add(out);
    }
    return response;
  }

  private static void describe(ClassicGroup group, DescribedGroup out) {
    ClassicGroupView view = group.describe();
    out.setGroupState(view.state())
        .setProtocolType(view.protocolType())
        .setProtocolData(view.protocolName());
    for (ClassicGroupView.MemberView m : view.members()) {
      out.members()
          .add(
              new DescribedGroupMember()
                  .setMemberId(m.memberId())
                  .setGroupInstanceId(m.groupInstanceId())
                  .setClientId(m.clientId())
                  .setClientHost(m.clientHost())
                  .setMemberMetadata(m.metadata())
                  .setMemberAssignment(m.assignment()));
    }
  }
}
