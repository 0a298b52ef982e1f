package io.kelp.gateway.api.deletetopics;

import io.kelp.codec.message.DeleteTopicsRequest;
import io.kelp.codec.message.DeleteTopicsRequest.DeleteTopicState;
import io.kelp.codec.message.DeleteTopicsResponse;
import io.kelp.codec.message.DeleteTopicsResponse.DeletableTopicResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.CommittedOffsets;
import io.kelp.gateway.topic.LiveTopic;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DeleteTopics (key 20), versions 1-6: by name, and from v6 by name or topic id (not both:
 * INVALID_REQUEST). The topic's partition logs are closed and their data deleted from the store
 * before the catalog entry goes, so a deleted topic is really gone. Unknown names are
 * UNKNOWN_TOPIC_OR_PARTITION, unknown ids UNKNOWN_TOPIC_ID, a name given twice INVALID_REQUEST. The
 * request timeout is not used: deletion completes before the response.
 */
public final class DeleteTopicsHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(DeleteTopicsHandler.class);
  private static final UUID ZERO = new UUID(0, 0);

  @Override
  public short apiKey() {
    return 20;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    DeleteTopicsRequest r = (DeleteTopicsRequest) request;
    return Blocking.run(ctx.broker().blocking(), () -> respond(ctx.broker(), ctx.apiVersion(), r));
  }

  private DeleteTopicsResponse respond(BrokerServices b, short v, DeleteTopicsRequest r) {
    List<DeleteTopicState> asked = new ArrayList<>();
    if (v >= 6) {
      asked.addAll(r.topics());
    } else {
      for (String name : r.topicNames()) {
        asked.add(new DeleteTopicState().setName(name));
      }
    }
    Set<Object> seen = new HashSet<>();
    Set<Object> duplicates = new HashSet<>();
    for (DeleteTopicState t : asked) {
      Object key = t.name() != null ? t.name() : t.topicId();
      if (!seen.add(key)) {
        duplicates.add(key);
      }
    }
    DeleteTopicsResponse response = new DeleteTopicsResponse();
    for (DeleteTopicState t : asked) {
      DeletableTopicResult result = new DeletableTopicResult().setName(t.name());
      if (t.topicId() != null) {
        result.setTopicId(t.topicId());
      }
      Object key = t.name() != null ? t.name() : t.topicId();
      if (duplicates.contains(key)) {
        fail(result, Errors.INVALID_REQUEST, "Duplicate topic in request: " + key);
      } else {
        delete(b, t, result);
      }
      response.responses().add(result);
    }
    return response;
  }

  private void delete(BrokerServices b, DeleteTopicState t, DeletableTopicResult out) {
    boolean hasId = t.topicId() != null && !t.topicId().equals(ZERO);
    if (t.name() != null && hasId) {
      fail(out, Errors.INVALID_REQUEST, "You may not specify both topic name and topic id.");
      return;
    }
    Optional<LiveTopic> topic;
    if (t.name() != null) {
      topic = b.topics().get(t.name());
      // A topic in the store that is not served (see TopicRegistry#unreadable) is deleted by name.
      if (topic.isEmpty() && b.topics().unreadable(t.name()).isEmpty()) {
        fail(out, Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic.");
        return;
      }
    } else {
      topic = hasId ? b.topics().get(t.topicId()) : Optional.empty();
      if (topic.isEmpty()) {
        fail(out, Errors.UNKNOWN_TOPIC_ID, "This server does not host this topic ID.");
        return;
      }
    }
    String name = topic.map(LiveTopic::name).orElse(t.name());
    out.setName(name);
    topic.ifPresent(live -> out.setTopicId(live.topicId()));
    try {
      if (!b.topics().delete(name)) {
        fail(out, Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic.");
      } else if (b.groups() != null) {
        new CommittedOffsets(b.groups()).removeTopic(name);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Deleting topic {} failed", name, e);
      fail(out, Errors.KAFKA_STORAGE_ERROR, "Deleting topic " + name + " failed: " + e);
    }
  }

  private static void fail(DeletableTopicResult out, short code, String message) {
    out.setErrorCode(code).setErrorMessage(message);
  }
}
