package io.kelp.gateway.api.offsetcommit;

import io.kelp.codec.message.OffsetCommitRequest;
import io.kelp.codec.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.kelp.codec.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.kelp.codec.message.OffsetCommitResponse;
import io.kelp.codec.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import io.kelp.codec.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.CommittedOffsets;
import io.kelp.gateway.coordinator.CommittedOffsets.Commit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetCommit (key 8), versions 2-9: stores a group's committed offsets durably before answering.
 * Commits from outside the group (assign() consumers, admin tools: empty member id, generation -1)
 * are accepted while the group has no members, creating the group if needed; members must name
 * their current generation (classic) or member epoch (KIP-848, v9). v2-4 retention times set an
 * expiry per commit. Unknown topics or partitions are UNKNOWN_TOPIC_OR_PARTITION, metadata over
 * 4096 characters OFFSET_METADATA_TOO_LARGE. v10 (topic ids) is not served.
 */
public final class OffsetCommitHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 8;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 9;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    OffsetCommitRequest r = (OffsetCommitRequest) request;
    List<Commit> commits = new ArrayList<>();
    for (OffsetCommitRequestTopic t : r.topics()) {
      for (OffsetCommitRequestPartition p : t.partitions()) {
        commits.add(
            new Commit(
                new TopicPartition(t.name(), p.partitionIndex()),
                p.committedOffset(),
                p.committedLeaderEpoch(),
                p.committedMetadata()));
      }
    }
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return CompletableFuture.completedFuture(respond(r, commits, null, Errors.INVALID_GROUP_ID));
    }
    short version = ctx.apiVersion();
    CommittedOffsets offsets = new CommittedOffsets(ctx.broker().groups());
    return ctx.broker()
        .groupRequest(
            r.groupId(),
            "OffsetCommit",
            () ->
                (ApiMessage)
                    respond(
                        r,
                        commits,
                        offsets.commit(
                            r.groupId(),
                            r.memberId(),
                            r.groupInstanceId(),
                            r.generationIdOrMemberEpoch(),
                            version,
                            version <= 4 ? r.retentionTimeMs() : -1,
                            commits),
                        Errors.NONE),
            () -> respond(r, commits, null, Errors.COORDINATOR_NOT_AVAILABLE));
  }

  private static OffsetCommitResponse respond(
      OffsetCommitRequest r, List<Commit> commits, Map<TopicPartition, Short> errors, short all) {
    OffsetCommitResponse response = new OffsetCommitResponse();
    int i = 0;
    for (OffsetCommitRequestTopic t : r.topics()) {
      OffsetCommitResponseTopic out = new OffsetCommitResponseTopic().setName(t.name());
      for (OffsetCommitRequestPartition p : t.partitions()) {
        Short error = errors == null ? null : errors.get(commits.get(i).partition());
        out.partitions()
            .add(
                new OffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(error == null ? all : error));
        i++;
      }
      response.topics().add(out);
    }
    return response;
  }
}
