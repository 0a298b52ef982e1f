package io.kelp.gateway.api.deletegroups;

import io.kelp.codec.message.DeleteGroupsRequest;
import io.kelp.codec.message.DeleteGroupsResponse;
import io.kelp.codec.message.DeleteGroupsResponse.DeletableGroupResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.CommittedOffsets;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteGroups (key 42), versions 0-2: deletes empty groups with their committed offsets, from the
 * store first. A group with members is NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND.
 */
public final class DeleteGroupsHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 42;
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
    DeleteGroupsRequest r = (DeleteGroupsRequest) request;
    CommittedOffsets offsets = new CommittedOffsets(ctx.broker().groups());
    return ctx.broker()
        .groupRequest(
            null,
            "DeleteGroups",
            () -> {
              DeleteGroupsResponse response = new DeleteGroupsResponse();
              for (Map.Entry<String, Short> e : offsets.deleteGroups(r.groupsNames()).entrySet()) {
                response
                    .results()
                    .add(
                        new DeletableGroupResult()
                            .setGroupId(e.getKey())
                            .setErrorCode(e.getValue()));
              }
              return (ApiMessage) response;
            },
            () -> {
              DeleteGroupsResponse response = new DeleteGroupsResponse();
              for (String groupId : new LinkedHashSet<>(r.groupsNames())) {
                response
                    .results()
                    .add(
                        new DeletableGroupResult()
                            .setGroupId(groupId)
                            .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
              }
              return response;
            });
  }
}
