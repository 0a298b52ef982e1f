package io.kelp.gateway.api.consumergroupdescribe;

import io.kelp.codec.message.ConsumerGroupDescribeRequest;
import io.kelp.codec.message.ConsumerGroupDescribeResponse;
import io.kelp.codec.message.ConsumerGroupDescribeResponse.DescribedGroup;
import io.kelp.codec.message.ConsumerGroupDescribeResponse.Member;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.AclOperations;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.consumer.ConsumerGroup;
import io.kelp.gateway.coordinator.consumer.ConsumerGroupMember;
import io.kelp.gateway.coordinator.consumer.ConsumerGroups;
import io.kelp.gateway.coordinator.consumer.GroupError;
import io.kelp.gateway.topic.LiveTopic;
import io.kelp.gateway.topic.TopicRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * ConsumerGroupDescribe (key 69), versions 0-1: epochs, assignor and every member's current and
 * target assignment of consumer groups. Unknown groups and classic groups get GROUP_ID_NOT_FOUND,
 * as in Kafka; v1 reports every member as using the consumer protocol (member type 1).
 *
 * <p>Deviation: there is no authorizer, so the authorized operations, when asked for, are every
 * operation a group supports (read, describe, delete), which is what Kafka reports without one.
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler {
  private static final int GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
  private static final byte CONSUMER_MEMBER = 1;

  @Override
  public short apiKey() {
    return ConsumerGroupDescribeRequest.API_KEY;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    ConsumerGroupDescribeRequest r = (ConsumerGroupDescribeRequest) request;
    GroupCoordinator groups = ctx.broker().groups();
    return ctx.broker()
        .groupRequest(
            null,
            "ConsumerGroupDescribe",
            () -> respond(groups, r, ctx.apiVersion()),
            () -> {
              ConsumerGroupDescribeResponse response = new ConsumerGroupDescribeResponse();
              for (String groupId : r.groupIds()) {
                response
                    .groups()
                    .add(
                        new DescribedGroup()
                            .setGroupId(groupId)
                            .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
              }
              return response;
            });
  }

  private static ApiMessage respond(
      GroupCoordinator groups, ConsumerGroupDescribeRequest r, short version) {
    ConsumerGroupDescribeResponse response = new ConsumerGroupDescribeResponse();
    for (String groupId : r.groupIds()) {
      DescribedGroup out = new DescribedGroup().setGroupId(groupId);
      if (groups == null) {
        out.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE);
      } else {
        try {
          ConsumerGroup g = ConsumerGroups.existing(groups, groupId);
          synchronized (g) {
            describe(g, groups.topics(), version, out);
          }
          if (r.includeAuthorizedOperations()) {
            out.setAuthorizedOperations(GROUP_OPERATIONS);
          } else {
            out.setAuthorizedOperations(AclOperations.NOT_REQUESTED);
          }
        } catch (GroupError e) {
          out.setErrorCode(e.code()).setErrorMessage(e.getMessage());
        }
      }
      response.groups().add(out);
    }
    return response;
  }

  private static void describe(
      ConsumerGroup g, TopicRegistry topics, short version, DescribedGroup out) {
    if (g.isDead()) {
      throw new GroupError(Errors.GROUP_ID_NOT_FOUND, "Group " + g.groupId() + " not found.");
    }
    out.setGroupState(g.state())
        .setGroupEpoch(g.groupEpoch())
        .setAssignmentEpoch(g.assignmentEpoch())
        .setAssignorName(g.preferredAssignor());
    for (ConsumerGroupMember m : g.members().values()) {
      Member member =
          new Member()
              .setMemberId(m.memberId())
              .setInstanceId(m.instanceId())
              .setRackId(m.rackId())
              .setMemberEpoch(m.memberEpoch())
              .setClientId(m.clientId())
              .setClientHost(m.clientHost())
              .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopicNames()))
              .setSubscribedTopicRegex(m.subscribedTopicRegex())
              .setAssignment(assignment(m.assigned(), topics))
              .setTargetAssignment(assignment(g.targetAssignment(m.memberId()), topics));
      if (version >= 1) {
        member.setMemberType(CONSUMER_MEMBER);
      }
      out.members().add(member);
    }
  }

  private static ConsumerGroupDescribeResponse.Assignment assignment(
      Map<UUID, Set<Integer>> partitions, TopicRegistry topics) {
    List<ConsumerGroupDescribeResponse.TopicPartitions> out = new ArrayList<>();
    partitions.forEach(
        (topicId, ps) -> {
          Optional<LiveTopic> t = topics.get(topicId);
          // Partitions of a deleted topic are on their way out; Kafka leaves them out too.
          t.ifPresent(
              topic ->
                  out.add(
                      new ConsumerGroupDescribeResponse.TopicPartitions()
                          .setTopicId(topicId)
                          .setTopicName(topic.name())
                          .setPartitions(new ArrayList<>(ps))));
        });
    return new ConsumerGroupDescribeResponse.Assignment().setTopicPartitions(out);
  }
}
