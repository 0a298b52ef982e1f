package io.kelp.gateway.api.createtopics;

import io.kelp.codec.message.CreateTopicsRequest;
import io.kelp.codec.message.CreateTopicsRequest.CreatableReplicaAssignment;
import io.kelp.codec.message.CreateTopicsRequest.CreatableTopic;
import io.kelp.codec.message.CreateTopicsRequest.CreatableTopicConfig;
import io.kelp.codec.message.CreateTopicsResponse;
import io.kelp.codec.message.CreateTopicsResponse.CreatableTopicConfigs;
import io.kelp.codec.message.CreateTopicsResponse.CreatableTopicResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.catalog.TopicCatalog;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.config.ConfigKey;
import io.kelp.gateway.config.ConfigSource;
import io.kelp.gateway.config.InvalidConfigException;
import io.kelp.gateway.config.TopicConfig;
import io.kelp.gateway.config.TopicConfigs;
import io.kelp.gateway.topic.LiveTopic;
import io.kelp.gateway.topic.TopicNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreateTopics (key 19), versions 2-7. Checks in Kafka's order: legal and unique names, existing
 * topics (TOPIC_ALREADY_EXISTS), names that collide on '.' versus '_', partition count (-1 means
 * {@code default.partitions}), replication factor (-1 or 1: this broker is the only replica),
 * manual assignments (only onto this broker, partitions 0..n-1), then configs (unknown keys and bad
 * values are INVALID_CONFIG). validate_only runs every check and creates nothing. v5+ responses
 * carry the partition count, replication factor and every config with its source.
 *
 * <p>Deviation: at most 2520 partitions per topic (the ring Kelp's storage layout divides); more is
 * INVALID_PARTITIONS. The request timeout is not used: creation completes before the response.
 */
public final class CreateTopicsHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(CreateTopicsHandler.class);

  @Override
  public short apiKey() {
    return 19;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 7;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    CreateTopicsRequest r = (CreateTopicsRequest) request;
    return Blocking.run(ctx.broker().blocking(), () -> respond(ctx.broker(), ctx.apiVersion(), r));
  }

  private CreateTopicsResponse respond(BrokerServices b, short v, CreateTopicsRequest r) {
    Set<String> seen = new HashSet<>();
    Set<String> duplicates = new HashSet<>();
    for (CreatableTopic t : r.topics()) {
      if (!seen.add(t.name())) {
        duplicates.add(t.name());
      }
    }
    CreateTopicsResponse response = new CreateTopicsResponse();
    for (CreatableTopic t : r.topics()) {
      CreatableTopicResult result = new CreatableTopicResult().setName(t.name());
      if (duplicates.contains(t.name())) {
        fail(result, Errors.INVALID_REQUEST, "Duplicate topic name " + t.name() + " in request.");
      } else {
        create(b, v, t, r.validateOnly(), result);
      }
      response.topics().add(result);
    }
    return response;
  }

  private void create(
      BrokerServices b, short v, CreatableTopic t, boolean validateOnly, CreatableTopicResult out) {
    String name = t.name();
    String problem = TopicNames.problem(name);
    if (problem != null) {
      fail(out, Errors.INVALID_TOPIC_EXCEPTION, problem);
      return;
    }
    if (b.topics().get(name).isPresent()) {
      fail(out, Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
      return;
    }
    Optional<String> unreadable = b.topics().unreadable(name);
    if (unreadable.isPresent()) {
      // validate_only too: the name is taken by a topic this broker cannot read.
      fail(
          out,
          Errors.TOPIC_ALREADY_EXISTS,
          "Topic '" + name + "' already exists, but is not served: " + unreadable.get());
      return;
    }
    Optional<String> collision = b.topics().collision(name);
    if (collision.isPresent()) {
      fail(
          out,
          Errors.INVALID_TOPIC_EXCEPTION,
          "Topic '" + name + "' collides with existing topic: " + collision.get());
      return;
    }
    int partitions = partitions(b, t, out);
    if (partitions < 0) {
      return;
    }
    Map<String, String> configs;
    try {
      configs = TopicConfigs.validate(requestedConfigs(t));
    } catch (InvalidConfigException e) {
      fail(out, Errors.INVALID_CONFIG, e.getMessage());
      return;
    }
    LiveTopic created = null;
    if (!validateOnly) {
      try {
        created = b.topics().create(name, partitions, configs);
      } catch (IllegalStateException e) {
        fail(out, Errors.TOPIC_ALREADY_EXISTS, e.getMessage());
        return;
      } catch (IOException | RuntimeException e) {
        LOG.warn("Creating topic {} failed", name, e);
        fail(out, Errors.UNKNOWN_SERVER_ERROR, "Creating topic " + name + " failed: " + e);
        return;
      }
    }
    if (v >= 5) {
      out.setNumPartitions(partitions).setReplicationFactor((short) 1);
      out.setConfigs(describeConfigs(TopicConfig.of(configs)));
    }
    if (created != null) {
      out.setTopicId(created.topicId());
    }
  }

  /** The partition count to create, or -1 after recording the error in {@code out}. */
  private static int partitions(BrokerServices b, CreatableTopic t, CreatableTopicResult out) {
    List<CreatableReplicaAssignment> assignments = t.assignments();
    int count;
    if (!assignments.isEmpty()) {
      if (t.numPartitions() != -1 || t.replicationFactor() != -1) {
        fail(
            out,
            Errors.INVALID_REQUEST,
            "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot"
                + " be used at the same time.");
        return -1;
      }
      String problem = checkAssignments(assignments, b.brokerId());
      if (problem != null) {
        fail(out, Errors.INVALID_REPLICA_ASSIGNMENT, problem);
        return -1;
      }
      count = assignments.size();
    } else {
      count = t.numPartitions() == -1 ? b.config().defaultPartitions() : t.numPartitions();
      if (count <= 0) {
        fail(out, Errors.INVALID_PARTITIONS, "Number of partitions was set to an invalid value.");
        return -1;
      }
      short rf = t.replicationFactor();
      if (rf == 0 || rf < -1) {
        fail(
            out,
            Errors.INVALID_REPLICATION_FACTOR,
            "Replication factor must be larger than 0, or -1 to use the default value.");
        return -1;
      }
      if (rf > 1) {
        fail(
            out,
            Errors.INVALID_REPLICATION_FACTOR,
            "Unable to replicate the partition "
                + rf
                + " time(s): The target replication factor of "
                + rf
                + " cannot be reached because only 1 broker(s) are registered.");
        return -1;
      }
    }
    if (count > TopicCatalog.RING_SIZE) {
      fail(
          out,
          Errors.INVALID_PARTITIONS,
          "Kelp allows at most " + TopicCatalog.RING_SIZE + " partitions per topic, not " + count);
      return -1;
    }
    return count;
  }

  private static String checkAssignments(List<CreatableReplicaAssignment> assignments, int self) {
    Set<Integer> indexes = new HashSet<>();
    for (CreatableReplicaAssignment a : assignments) {
      indexes.add(a.partitionIndex());
      if (a.brokerIds().isEmpty()) {
        return "The manual partition assignment includes an empty replica list.";
      }
      for (int broker : a.brokerIds()) {
        if (broker != self) {
          return "The manual partition assignment includes broker "
              + broker
              + ", but no such broker is registered.";
        }
      }
      if (a.brokerIds().size() > 1) {
        return "The manual partition assignment includes the partition "
            + a.partitionIndex()
            + " with duplicate replicas.";
      }
    }
    for (int i = 0; i < assignments.size(); i++) {
      if (!indexes.contains(i)) {
        return "partitions should be a consecutive 0-based integer sequence";
      }
    }
    return null;
  }

  private static Map<String, String> requestedConfigs(CreatableTopic t)
      throws InvalidConfigException {
    Map<String, String> configs = new LinkedHashMap<>();
    for (CreatableTopicConfig c : t.configs()) {
      if (c.value() == null) {
        throw new InvalidConfigException("Null value not supported for topic configs: " + c.name());
      }
      configs.put(c.name(), c.value());
    }
    return configs;
  }

  private static List<CreatableTopicConfigs> describeConfigs(TopicConfig config) {
    List<CreatableTopicConfigs> out = new ArrayList<>();
    for (ConfigKey key : TopicConfigs.all()) {
      out.add(
          new CreatableTopicConfigs()
              .setName(key.name())
              .setValue(config.value(key.name()))
              .setReadOnly(false)
              .setConfigSource(
                  config.isSet(key.name())
                      ? ConfigSource.DYNAMIC_TOPIC_CONFIG
                      : ConfigSource.DEFAULT_CONFIG)
              .setIsSensitive(false));
    }
    return out;
  }

  private static void fail(CreatableTopicResult out, short code, String message) {
    out.setErrorCode(code).setErrorMessage(message);
  }
}
