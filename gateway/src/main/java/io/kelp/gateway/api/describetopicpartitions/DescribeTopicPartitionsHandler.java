package io.kelp.gateway.api.describetopicpartitions;

import io.kelp.codec.message.DescribeTopicPartitionsRequest;
import io.kelp.codec.message.DescribeTopicPartitionsRequest.TopicRequest;
import io.kelp.codec.message.DescribeTopicPartitionsResponse;
import io.kelp.codec.message.DescribeTopicPartitionsResponse.Cursor;
import io.kelp.codec.message.DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition;
import io.kelp.codec.message.DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.AclOperations;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import io.kelp.gateway.topic.TopicNames;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeTopicPartitions (key 75), version 0: partition leaders, replicas and ISR (all this
 * broker), with empty eligible-leader lists, for the named topics (or all when the list is empty),
 * in name order and paged: at most {@code response_partition_limit} partitions (capped at 2000, as
 * Kafka's default {@code max.request.partition.size.limit}), then a cursor at the next partition. A
 * request cursor starts the page at its topic and partition. Unknown topics get
 * UNKNOWN_TOPIC_OR_PARTITION, illegal names INVALID_TOPIC_EXCEPTION.
 */
public final class DescribeTopicPartitionsHandler implements ApiHandler {
  private static final int MAX_PARTITIONS = 2000;

  @Override
  public short apiKey() {
    return 75;
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
    return CompletableFuture.completedFuture(
        respond(ctx.broker(), (DescribeTopicPartitionsRequest) request));
  }

  private DescribeTopicPartitionsResponse respond(
      BrokerServices b, DescribeTopicPartitionsRequest r) {
    TreeSet<String> names = new TreeSet<>();
    if (r.topics().isEmpty()) {
      b.topics().list().forEach(t -> names.add(t.name()));
      // Listed as Metadata lists them: in the store, but not served.
      names.addAll(b.topics().unreadableNames());
    } else {
      r.topics().forEach((TopicRequest t) -> names.add(t.name()));
    }
    String startTopic = r.cursor() == null ? null : r.cursor().topicName();
    int startPartition = r.cursor() == null ? 0 : Math.max(0, r.cursor().partitionIndex());
    int budget = Math.min(MAX_PARTITIONS, Math.max(1, r.responsePartitionLimit()));
    DescribeTopicPartitionsResponse response = new DescribeTopicPartitionsResponse();
    for (String name : startTopic == null ? names : names.tailSet(startTopic, true)) {
      int first = name.equals(startTopic) ? startPartition : 0;
      String problem = TopicNames.problem(name);
      Optional<LiveTopic> topic = problem == null ? b.topics().get(name) : Optional.empty();
      if (topic.isEmpty()) {
        response
            .topics()
            .add(
                new DescribeTopicPartitionsResponseTopic()
                    .setName(name)
                    .setErrorCode(
                        problem != null
                            ? Errors.INVALID_TOPIC_EXCEPTION
                            : b.topics().unreadable(name).isPresent()
                                ? Errors.LEADER_NOT_AVAILABLE
                                : Errors.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      if (budget == 0) {
        response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(first));
        break;
      }
      LiveTopic t = topic.get();
      DescribeTopicPartitionsResponseTopic out =
          new DescribeTopicPartitionsResponseTopic()
              .setName(name)
              .setTopicId(t.topicId())
              .setIsInternal(TopicNames.isInternal(name))
              .setTopicAuthorizedOperations(AclOperations.TOPIC);
      response.topics().add(out);
      int p = first;
      for (; p < t.partitions() && budget > 0; p++, budget--) {
        out.partitions().add(partition(b, t, p));
      }
      if (p < t.partitions()) {
        response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(p));
        break;
      }
    }
    return response;
  }

  private static DescribeTopicPartitionsResponsePartition partition(
      BrokerServices b, LiveTopic t, int p) {
    List<Integer> self = List.of(b.brokerId());
    return new DescribeTopicPartitionsResponsePartition()
        .setPartitionIndex(p)
        .setLeaderId(b.brokerId())
        .setLeaderEpoch(t.log(p).leaderEpoch())
        .setReplicaNodes(self)
        .setIsrNodes(self)
        .setEligibleLeaderReplicas(List.of())
        .setLastKnownElr(List.of());
  }
}
