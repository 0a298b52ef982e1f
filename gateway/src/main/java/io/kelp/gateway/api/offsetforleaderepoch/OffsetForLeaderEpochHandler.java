package io.kelp.gateway.api.offsetforleaderepoch;

import io.kelp.codec.message.OffsetForLeaderEpochRequest;
import io.kelp.codec.message.OffsetForLeaderEpochRequest.OffsetForLeaderPartition;
import io.kelp.codec.message.OffsetForLeaderEpochRequest.OffsetForLeaderTopic;
import io.kelp.codec.message.OffsetForLeaderEpochResponse;
import io.kelp.codec.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import io.kelp.codec.message.OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.PartitionLog;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetForLeaderEpoch (key 23), versions 2-4: for each partition, the largest leader epoch at or
 * below the one asked for and the offset where it ended, from the log's epoch history (both -1 when
 * the log has no such epoch). The client's current leader epoch is checked first
 * (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH). Consumers use it to detect truncation after a
 * leader change; librdkafka sends v2 only.
 */
public final class OffsetForLeaderEpochHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 23;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    OffsetForLeaderEpochRequest r = (OffsetForLeaderEpochRequest) request;
    return Blocking.run(ctx.broker().blocking(), () -> respond(ctx.broker(), r));
  }

  private OffsetForLeaderEpochResponse respond(BrokerServices b, OffsetForLeaderEpochRequest r) {
    OffsetForLeaderEpochResponse response = new OffsetForLeaderEpochResponse();
    for (OffsetForLeaderTopic t : r.topics()) {
      OffsetForLeaderTopicResult topicOut = new OffsetForLeaderTopicResult().setTopic(t.topic());
      Optional<LiveTopic> topic = b.topics().get(t.topic());
      for (OffsetForLeaderPartition p : t.partitions()) {
        EpochEndOffset out = new EpochEndOffset().setPartition(p.partition());
        PartitionLog log = topic.map(x -> x.log(p.partition())).orElse(null);
        if (log == null) {
          out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        } else {
          short epochError = Errors.checkLeaderEpoch(p.currentLeaderEpoch(), log.leaderEpoch());
          if (epochError != Errors.NONE) {
            out.setErrorCode(epochError);
          } else {
            io.kelp.engine.log.EpochEndOffset end = log.endOffsetForEpoch(p.leaderEpoch());
            out.setLeaderEpoch(end.leaderEpoch()).setEndOffset(end.endOffset());
          }
        }
        topicOut.partitions().add(out);
      }
      response.topics().add(topicOut);
    }
    return response;
  }
}
