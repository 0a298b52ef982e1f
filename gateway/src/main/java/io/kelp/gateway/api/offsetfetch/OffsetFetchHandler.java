package io.kelp.gateway.api.offsetfetch;

import io.kelp.codec.message.OffsetFetchRequest;
import io.kelp.codec.message.OffsetFetchRequest.OffsetFetchRequestGroup;
import io.kelp.codec.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import io.kelp.codec.message.OffsetFetchRequest.OffsetFetchRequestTopics;
import io.kelp.codec.message.OffsetFetchResponse;
import io.kelp.codec.message.OffsetFetchResponse.OffsetFetchResponseGroup;
import io.kelp.codec.message.OffsetFetchResponse.OffsetFetchResponsePartition;
import io.kelp.codec.message.OffsetFetchResponse.OffsetFetchResponsePartitions;
import io.kelp.codec.message.OffsetFetchResponse.OffsetFetchResponseTopic;
import io.kelp.codec.message.OffsetFetchResponse.OffsetFetchResponseTopics;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.CommittedOffsets;
import io.kelp.gateway.coordinator.CommittedOffsets.Fetched;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetFetch (key 9), versions 1-9: a group's committed offsets, for the partitions asked or (v2+,
 * null topics) for every partition with one. A partition without a committed offset answers offset
 * -1 and empty metadata; an unknown group has none and no error. v7 requireStable is always
 * satisfied, since Kelp has no pending transactional offsets yet. v8+ asks for several groups at
 * once; v9 names the KIP-848 member and epoch, checked against the group. v10 (topic ids) is not
 * served.
 */
public final class OffsetFetchHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 9;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 9;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    OffsetFetchRequest r = (OffsetFetchRequest) request;
    CommittedOffsets offsets = new CommittedOffsets(ctx.broker().groups());
    if (ctx.apiVersion() >= 8) {
      // One group, as consumers ask, in its lane; several (admin tools) on the pool itself.
      return ctx.broker()
          .groupRequest(
              r.groups().size() == 1 ? r.groups().get(0).groupId() : null,
              "OffsetFetch",
              () -> fetchGroups(offsets, r),
              () -> {
                OffsetFetchResponse response = new OffsetFetchResponse();
                for (OffsetFetchRequestGroup g : r.groups()) {
                  response
                      .groups()
                      .add(
                          new OffsetFetchResponseGroup()
                              .setGroupId(g.groupId())
                              .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
                }
                return response;
              });
    }
    return ctx.broker()
        .groupRequest(
            r.groupId(),
            "OffsetFetch",
            () -> fetchOne(offsets, r, ctx.apiVersion()),
            () -> unavailable(r, ctx.apiVersion()));
  }

  /**
   * COORDINATOR_NOT_AVAILABLE for a one-group OffsetFetch: before v2, which has no top-level error,
   * on each partition asked for.
   */
  private static OffsetFetchResponse unavailable(OffsetFetchRequest r, short version) {
    OffsetFetchResponse response =
        new OffsetFetchResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE);
    if (version >= 2 || r.topics() == null) {
      return response;
    }
    for (OffsetFetchRequestTopic t : r.topics()) {
      OffsetFetchResponseTopic out = new OffsetFetchResponseTopic().setName(t.name());
      for (int p : t.partitionIndexes()) {
        out.partitions()
            .add(
                new OffsetFetchResponsePartition()
                    .setPartitionIndex(p)
                    .setCommittedOffset(-1)
                    .setCommittedLeaderEpoch(-1)
                    .setMetadata("")
                    .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
      }
      response.topics().add(out);
    }
    return response;
  }

  private static OffsetFetchResponse fetchOne(
      CommittedOffsets offsets, OffsetFetchRequest r, short version) {
    List<TopicPartition> asked = null;
    if (r.topics() != null) {
      asked = new ArrayList<>();
      for (OffsetFetchRequestTopic t : r.topics()) {
        for (int p : t.partitionIndexes()) {
          asked.add(new TopicPartition(t.name(), p));
        }
      }
    }
    OffsetFetchResponse response = new OffsetFetchResponse();
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return response.setErrorCode(Errors.INVALID_GROUP_ID);
    }
    Fetched f = offsets.fetch(r.groupId(), null, -1, asked);
    response.setErrorCode(f.error());
    Map<String, OffsetFetchResponseTopic> topics = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : f.offsets().entrySet()) {
      OffsetAndMetadata o = e.getValue();
      OffsetFetchResponseTopic topic =
          topics.computeIfAbsent(
              e.getKey().topic(), n -> new OffsetFetchResponseTopic().setName(n));
      topic
          .partitions()
          .add(
              new OffsetFetchResponsePartition()
                  .setPartitionIndex(e.getKey().partition())
                  .setCommittedOffset(o == null ? -1 : o.offset())
                  .setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch())
                  .setMetadata(o == null ? "" : o.metadata())
                  .setErrorCode(version < 2 ? f.error() : Errors.NONE));
    }
    response.topics().addAll(topics.values());
    return response;
  }

  private static OffsetFetchResponse fetchGroups(CommittedOffsets offsets, OffsetFetchRequest r) {
    OffsetFetchResponse response = new OffsetFetchResponse();
    for (OffsetFetchRequestGroup g : r.groups()) {
      OffsetFetchResponseGroup out = new OffsetFetchResponseGroup().setGroupId(g.groupId());
      response.groups().add(out);
      if (g.groupId() == null || g.groupId().isEmpty()) {
        out.setErrorCode(Errors.INVALID_GROUP_ID);
        continue;
      }
      List<TopicPartition> asked = null;
      if (g.topics() != null) {
        asked = new ArrayList<>();
        for (OffsetFetchRequestTopics t : g.topics()) {
          for (int p : t.partitionIndexes()) {
            asked.add(new TopicPartition(t.name(), p));
          }
        }
      }
      Fetched f = offsets.fetch(g.groupId(), g.memberId(), g.memberEpoch(), asked);
      out.setErrorCode(f.error());
      Map<String, OffsetFetchResponseTopics> topics = new LinkedHashMap<>();
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : f.offsets().entrySet()) {
        OffsetAndMetadata o = e.getValue();
        topics
            .computeIfAbsent(e.getKey().topic(), n -> new OffsetFetchResponseTopics().setName(n))
            .partitions()
            .add(
                new OffsetFetchResponsePartitions()
                    .setPartitionIndex(e.getKey().partition())
                    .setCommittedOffset(o == null ? -1 : o.offset())
                    .setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch())
                    .setMetadata(o == null ? "" : o.metadata()));
      }
      out.topics().addAll(topics.values());
    }
    return response;
  }
}
