package io.kelp.gateway.api.createpartitions;

import io.kelp.codec.message.CreatePartitionsRequest;
import io.kelp.codec.message.CreatePartitionsRequest.CreatePartitionsAssignment;
import io.kelp.codec.message.CreatePartitionsRequest.CreatePartitionsTopic;
import io.kelp.codec.message.CreatePartitionsResponse;
import io.kelp.codec.message.CreatePartitionsResponse.CreatePartitionsTopicResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.catalog.TopicCatalog;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreatePartitions (key 37), versions 0-3: grows topics. A count not above the current one is
 * INVALID_PARTITIONS (with Kafka's messages); assignments must list one partition per new
 * partition, each placed on this broker only (else INVALID_REPLICA_ASSIGNMENT); a topic named twice
 * is INVALID_REQUEST; validate_only checks without changing anything. Existing partitions never
 * move: new ones get new directories in the store.
 *
 * <p>Deviation: at most 2520 partitions per topic, as for CreateTopics.
 */
public final class CreatePartitionsHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(CreatePartitionsHandler.class);

  @Override
  public short apiKey() {
    return 37;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 3;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    CreatePartitionsRequest r = (CreatePartitionsRequest) request;
    return Blocking.run(ctx.broker().blocking(), () -> respond(ctx.broker(), r));
  }

  private CreatePartitionsResponse respond(BrokerServices b, CreatePartitionsRequest r) {
    Set<String> seen = new HashSet<>();
    Set<String> duplicates = new HashSet<>();
    for (CreatePartitionsTopic t : r.topics()) {
      if (!seen.add(t.name())) {
        duplicates.add(t.name());
      }
    }
    CreatePartitionsResponse response = new CreatePartitionsResponse();
    for (CreatePartitionsTopic t : r.topics()) {
      CreatePartitionsTopicResult result = new CreatePartitionsTopicResult().setName(t.name());
      if (duplicates.contains(t.name())) {
        fail(result, Errors.INVALID_REQUEST, "Duplicate topic name in request.");
      } else {
        grow(b, t, r.validateOnly(), result);
      }
      response.results().add(result);
    }
    return response;
  }

  private void grow(
      BrokerServices b,
      CreatePartitionsTopic t,
      boolean validateOnly,
      CreatePartitionsTopicResult out) {
    Optional<LiveTopic> topic = b.topics().get(t.name());
    if (topic.isEmpty()) {
      fail(out, Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic.");
      return;
    }
    int current = topic.get().partitions();
    int count = t.count();
    if (count < current) {
      fail(
          out,
          Errors.INVALID_PARTITIONS,
          "The topic "
              + t.name()
              + " currently has "
              + current
              + " partition(s); "
              + count
              + " would not be an increase.");
      return;
    }
    if (count == current) {
      fail(out, Errors.INVALID_PARTITIONS, "Topic already has " + current + " partition(s).");
      return;
    }
    if (count > TopicCatalog.RING_SIZE) {
      fail(
          out,
          Errors.INVALID_PARTITIONS,
          "Kelp allows at most " + TopicCatalog.RING_SIZE + " partitions per topic, not " + count);
      return;
    }
    String problem = checkAssignments(t.assignments(), count - current, b.brokerId());
    if (problem != null) {
      fail(out, Errors.INVALID_REPLICA_ASSIGNMENT, problem);
      return;
    }
    if (validateOnly) {
      return;
    }
    try {
      b.topics().addPartitions(t.name(), count);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Adding partitions to {} failed", t.name(), e);
      fail(out, Errors.UNKNOWN_SERVER_ERROR, "Adding partitions failed: " + e);
    }
  }

  private static String checkAssignments(
      List<CreatePartitionsAssignment> assignments, int added, int self) {
    if (assignments == null) {
      return null;
    }
    if (assignments.size() != added) {
      return "Attempted to add "
          + added
          + " additional partition(s), but only "
          + assignments.size()
          + " assignment(s) were specified.";
    }
    for (CreatePartitionsAssignment a : assignments) {
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
        return "The manual partition assignment includes duplicate replicas.";
      }
    }
    return null;
  }

  private static void fail(CreatePartitionsTopicResult out, short code, String message) {
    out.setErrorCode(code).setErrorMessage(message);
  }
}
