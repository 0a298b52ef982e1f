package io.kelp.gateway.api.consumergroupheartbeat;

import io.kelp.codec.message.ConsumerGroupHeartbeatRequest;
import io.kelp.codec.message.ConsumerGroupHeartbeatResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.consumer.ConsumerGroups;
import io.kelp.gateway.coordinator.consumer.GroupError;
import io.kelp.gateway.coordinator.consumer.Heartbeat;
import io.kelp.gateway.coordinator.consumer.HeartbeatResult;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ConsumerGroupHeartbeat (key 68), versions 0-1: joins, heartbeats and leaves of the consumer group
 * protocol (KIP-848), decided by {@link ConsumerGroups}. v0 members get their id from the broker;
 * v1 members pick it themselves (KIP-1082).
 *
 * <p>Deviations: subscription regexes are Java regular expressions (Kafka uses RE2/J syntax; the
 * common subset is the same) and are resolved on every heartbeat rather than in the background; a
 * non-empty classic group is never converted online into a consumer group: a heartbeat to it gets
 * GROUP_ID_NOT_FOUND, as Kafka answers when online upgrades are off. A failed store write answers
 * COORDINATOR_NOT_AVAILABLE, so the client retries.
 */
public final class ConsumerGroupHeartbeatHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupHeartbeatHandler.class);

  @Override
  public short apiKey() {
    return ConsumerGroupHeartbeatRequest.API_KEY;
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
    ConsumerGroupHeartbeatRequest r = (ConsumerGroupHeartbeatRequest) request;
    GroupCoordinator groups = ctx.broker().groups();
    if (groups == null) {
      return CompletableFuture.completedFuture(
          new ConsumerGroupHeartbeatResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
    }
    Heartbeat hb = heartbeat(r, ctx.clientId(), host(ctx.clientAddress()));
    return ctx.broker()
        .groupRequest(
            hb.groupId(),
            "ConsumerGroupHeartbeat",
            () -> respond(groups, hb, ctx.apiVersion()),
            () ->
                new ConsumerGroupHeartbeatResponse()
                    .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE)
                    .setErrorMessage(
                        "The group's earlier requests are still waiting on the store"));
  }

  private static ApiMessage respond(GroupCoordinator groups, Heartbeat hb, short version) {
    ConsumerGroupHeartbeatResponse response = new ConsumerGroupHeartbeatResponse();
    try {
      HeartbeatResult result = ConsumerGroups.heartbeat(groups, hb, version);
      response
          .setMemberId(result.memberId())
          .setMemberEpoch(result.memberEpoch())
          .setHeartbeatIntervalMs(result.heartbeatIntervalMs());
      if (result.assignment() != null) {
        response.setAssignment(assignment(result.assignment()));
      }
    } catch (GroupError e) {
      response.setErrorCode(e.code()).setErrorMessage(e.getMessage());
    } catch (IOException e) {
      LOG.warn("Writing the state of group {} failed", hb.groupId(), e);
      response
          .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE)
          .setErrorMessage("Writing the group's state failed: " + e.getMessage());
    }
    return response;
  }

  private static Heartbeat heartbeat(
      ConsumerGroupHeartbeatRequest r, String clientId, String host) {
    Map<UUID, Set<Integer>> owned = null;
    if (r.topicPartitions() != null) {
      owned = new HashMap<>();
      for (ConsumerGroupHeartbeatRequest.TopicPartitions tp : r.topicPartitions()) {
        owned.computeIfAbsent(tp.topicId(), k -> new TreeSet<>()).addAll(tp.partitions());
      }
    }
    return new Heartbeat(
        r.groupId(),
        r.memberId() == null ? "" : r.memberId(),
        r.memberEpoch(),
        r.instanceId(),
        r.rackId(),
        r.rebalanceTimeoutMs(),
        r.subscribedTopicNames(),
        r.subscribedTopicRegex(),
        r.serverAssignor(),
        owned,
        clientId == null ? "" : clientId,
        host);
  }

  private static ConsumerGroupHeartbeatResponse.Assignment assignment(
      Map<UUID, Set<Integer>> partitions) {
    List<ConsumerGroupHeartbeatResponse.TopicPartitions> topics = new ArrayList<>();
    partitions.forEach(
        (topic, ps) ->
            topics.add(
                new ConsumerGroupHeartbeatResponse.TopicPartitions()
                    .setTopicId(topic)
                    .setPartitions(new ArrayList<>(ps))));
    return new ConsumerGroupHeartbeatResponse.Assignment().setTopicPartitions(topics);
  }

  /** The client's host as Kafka reports it: "/" and the address. */
  static String host(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return "/" + inet.getAddress().getHostAddress();
    }
    return address == null ? "" : address.toString();
  }
}
