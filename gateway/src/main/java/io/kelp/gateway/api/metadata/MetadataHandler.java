package io.kelp.gateway.api.metadata;

import io.kelp.codec.message.MetadataRequest;
import io.kelp.codec.message.MetadataResponse;
import io.kelp.codec.message.MetadataResponse.MetadataResponseBroker;
import io.kelp.codec.message.MetadataResponse.MetadataResponsePartition;
import io.kelp.codec.message.MetadataResponse.MetadataResponseTopic;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.PartitionLog;
import io.kelp.gateway.api.AclOperations;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.server.HostPort;
import io.kelp.gateway.topic.LiveTopic;
import io.kelp.gateway.topic.TopicNames;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata (key 3), versions 0-12. This broker is the controller and the leader, sole replica and
 * ISR of every partition; leader epochs come from the partition logs. Unknown topics are created
 * when the broker allows auto-creation and the request does (v4+; always for v0-3), with the
 * default partition count; the new topic is returned at once rather than with Kafka's transient
 * LEADER_NOT_AVAILABLE, since its partitions are ready when the create returns. Topics named by id
 * are resolved in v12 (UNKNOWN_TOPIC_ID when unknown); a null name before v12 is INVALID_REQUEST. A
 * request that may create a topic runs on the blocking executor, since creation writes to the
 * store; the others only read memory and run on threads of their own ({@link
 * BrokerServices#metadataReads}), never behind a store write.
 */
public final class MetadataHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataHandler.class);
  private static final UUID ZERO = new UUID(0, 0);

  @Override
  public short apiKey() {
    return 3;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 12;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    MetadataRequest r = (MetadataRequest) request;
    BrokerServices b = ctx.broker();
    short v = ctx.apiVersion();
    boolean mayCreate = mayCreate(b, v, r);
    return Blocking.run(
        mayCreate ? b.blocking() : b.metadataReads(), () -> respond(b, v, r, mayCreate));
  }

  /** Whether the request may auto-create a topic: it is allowed to and names one not served. */
  private static boolean mayCreate(BrokerServices b, short v, MetadataRequest r) {
    if (!autoCreateAllowed(b, v, r) || r.topics() == null) {
      return false;
    }
    for (MetadataRequest.MetadataRequestTopic t : r.topics()) {
      if (t.name() != null && b.topics().get(t.name()).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static boolean autoCreateAllowed(BrokerServices b, short v, MetadataRequest r) {
    return b.config().autoCreateTopics() && (v < 4 || r.allowAutoTopicCreation());
  }

  /**
   * The answer; {@code mayCreate} false leaves a topic unknown rather than create it (one deleted
   * since {@link #mayCreate} looked: the client asks again, and that request creates it).
   */
  private MetadataResponse respond(
      BrokerServices b, short v, MetadataRequest r, boolean mayCreate) {
    HostPort self = b.advertised();
    MetadataResponse response =
        new MetadataResponse().setClusterId(b.clusterId()).setControllerId(b.brokerId());
    response
        .brokers()
        .add(
            new MetadataResponseBroker()
                .setNodeId(b.brokerId())
                .setHost(self.host())
                .setPort(self.port()));
    if (v >= 8 && v <= 10 && r.includeClusterAuthorizedOperations()) {
      response.setClusterAuthorizedOperations(AclOperations.CLUSTER);
    }
    boolean ops = v >= 8 && r.includeTopicAuthorizedOperations();
    List<MetadataRequest.MetadataRequestTopic> asked = r.topics();
    if (asked == null || (v == 0 && asked.isEmpty())) {
      for (LiveTopic t : b.topics().list()) {
        response.topics().add(describe(t, b.brokerId(), ops));
      }
      // Listed, as Kafka lists a topic whose partitions are offline, so that tools can delete it.
      for (String name : b.topics().unreadableNames()) {
        response.topics().add(error(name, Errors.LEADER_NOT_AVAILABLE));
      }
      return response;
    }
    boolean autoCreate = mayCreate && autoCreateAllowed(b, v, r);
    Set<Object> seen = new HashSet<>();
    for (MetadataRequest.MetadataRequestTopic t : asked) {
      Object key = t.name() != null ? t.name() : t.topicId();
      if (seen.add(key)) {
        response.topics().add(topic(b, v, t, autoCreate, ops));
      }
    }
    return response;
  }

  private MetadataResponseTopic topic(
      BrokerServices b,
      short v,
      MetadataRequest.MetadataRequestTopic asked,
      boolean autoCreate,
      boolean ops) {
    String name = asked.name();
    if (name == null) {
      if (v < 12 || asked.topicId() == null || asked.topicId().equals(ZERO)) {
        return error(null, Errors.INVALID_REQUEST);
      }
      Optional<LiveTopic> byId = b.topics().get(asked.topicId());
      if (byId.isEmpty()) {
        return error(null, Errors.UNKNOWN_TOPIC_ID).setTopicId(asked.topicId());
      }
      return describe(byId.get(), b.brokerId(), ops);
    }
    if (!TopicNames.isValid(name)) {
      return error(name, Errors.INVALID_TOPIC_EXCEPTION);
    }
    Optional<LiveTopic> existing = b.topics().get(name);
    if (existing.isPresent()) {
      return describe(existing.get(), b.brokerId(), ops);
    }
    if (b.topics().unreadable(name).isPresent()) {
      // In the store but not served: the name is taken, and its partitions have no leader.
      return error(name, Errors.LEADER_NOT_AVAILABLE);
    }
    if (!autoCreate) {
      return error(name, Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    if (b.topics().collision(name).isPresent()) {
      return error(name, Errors.INVALID_TOPIC_EXCEPTION);
    }
    Optional<LiveTopic> created = autoCreate(b, name);
    return created.isPresent()
        ? describe(created.get(), b.brokerId(), ops)
        : error(name, Errors.LEADER_NOT_AVAILABLE);
  }

  private static Optional<LiveTopic> autoCreate(BrokerServices b, String name) {
    try {
      return Optional.of(b.topics().create(name, b.config().defaultPartitions(), Map.of()));
    } catch (IllegalStateException e) {
      // Created by another request meanwhile.
      return b.topics().get(name);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Auto-creating topic {} failed", name, e);
      return Optional.empty();
    }
  }

  private static MetadataResponseTopic error(String name, short code) {
    return new MetadataResponseTopic().setName(name).setErrorCode(code);
  }

  private static MetadataResponseTopic describe(LiveTopic topic, int brokerId, boolean ops) {
    MetadataResponseTopic out =
        new MetadataResponseTopic()
            .setName(topic.name())
            .setTopicId(topic.topicId())
            .setIsInternal(TopicNames.isInternal(topic.name()));
    List<Integer> self = List.of(brokerId);
    for (int p = 0; p < topic.partitions(); p++) {
      PartitionLog log = topic.log(p);
      out.partitions()
          .add(
              new MetadataResponsePartition()
                  .setPartitionIndex(p)
                  .setLeaderId(brokerId)
                  .setLeaderEpoch(log.leaderEpoch())
                  .setReplicaNodes(self)
                  .setIsrNodes(self));
    }
    if (ops) {
      out.setTopicAuthorizedOperations(AclOperations.TOPIC);
    }
    return out;
  }
}
