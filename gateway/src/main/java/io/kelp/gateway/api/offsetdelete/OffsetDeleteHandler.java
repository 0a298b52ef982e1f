package io.kelp.gateway.api.offsetdelete;

import io.kelp.codec.message.OffsetDeleteRequest;
import io.kelp.codec.message.OffsetDeleteRequest.OffsetDeleteRequestPartition;
import io.kelp.codec.message.OffsetDeleteRequest.OffsetDeleteRequestTopic;
import io.kelp.codec.message.OffsetDeleteResponse;
import io.kelp.codec.message.OffsetDeleteResponse.OffsetDeleteResponsePartition;
import io.kelp.codec.message.OffsetDeleteResponse.OffsetDeleteResponseTopic;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.CommittedOffsets;
import io.kelp.gateway.coordinator.CommittedOffsets.Deleted;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetDelete (key 47), version 0: deletes committed offsets of a group (the admin client's
 * deleteConsumerGroupOffsets). Offsets of topics the group's members consume are refused with
 * GROUP_SUBSCRIBED_TO_TOPIC; a non-empty group of another protocol type than consumer is
 * NON_EMPTY_GROUP; an unknown group GROUP_ID_NOT_FOUND.
 */
public final class OffsetDeleteHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 47;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 0;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    OffsetDeleteRequest r = (OffsetDeleteRequest) request;
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return CompletableFuture.completedFuture(
          new OffsetDeleteResponse().setErrorCode(Errors.INVALID_GROUP_ID));
    }
    List<TopicPartition> partitions = new ArrayList<>();
    for (OffsetDeleteRequestTopic t : r.topics()) {
      for (OffsetDeleteRequestPartition p : t.partitions()) {
        partitions.add(new TopicPartition(t.name(), p.partitionIndex()));
      }
    }
    CommittedOffsets offsets = new CommittedOffsets(ctx.broker().groups());
    return ctx.broker()
        .groupRequest(
            r.groupId(),
            "OffsetDelete",
            () -> {
              Deleted d = offsets.delete(r.groupId(), partitions);
              OffsetDeleteResponse response = new OffsetDeleteResponse().setErrorCode(d.error());
              if (d.error() != Errors.NONE) {
                return response;
              }
              for (OffsetDeleteRequestTopic t : r.topics()) {
                OffsetDeleteResponseTopic out = new OffsetDeleteResponseTopic().setName(t.name());
                for (OffsetDeleteRequestPartition p : t.partitions()) {
                  Short error =
                      d.partitions().get(new TopicPartition(t.name(), p.partitionIndex()));
                  out.partitions()
                      .add(
                          new OffsetDeleteResponsePartition()
                              .setPartitionIndex(p.partitionIndex())
                              .setErrorCode(error == null ? Errors.NONE : error));
                }
                response.topics().add(out);
              }
              return (ApiMessage) response;
            },
            () -> new OffsetDeleteResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
  }
}
