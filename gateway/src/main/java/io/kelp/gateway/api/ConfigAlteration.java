package io.kelp.gateway.api;

import io.kelp.gateway.config.InvalidConfigException;
import io.kelp.gateway.config.TopicConfigs;
import io.kelp.gateway.topic.LiveTopic;
import io.kelp.gateway.topic.TopicNames;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What AlterConfigs and IncrementalAlterConfigs share: resolving the resource, validating the new
 * topic config set, and applying it (to the catalog and the open partition logs) unless only
 * validating. Blocks on the store; call it on the blocking executor.
 */
public final class ConfigAlteration {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigAlteration.class);

  private ConfigAlteration() {}

  /** An error code and message, or NONE. */
  public record Outcome(short errorCode, String message) {
    public static final Outcome OK = new Outcome(Errors.NONE, null);
  }

  /** Thrown by a change function to answer with an error instead of a new config set. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final short errorCode;

    public Refused(short errorCode, String message) {
      super(message);
      this.errorCode = errorCode;
    }
  }

  /** A change to a topic's explicit configs: from the current set to the new one. */
  public interface Change {
    Map<String, String> apply(Map<String, String> current) throws Refused;
  }

  /** Alters a topic's configs with {@code change}. */
  public static Outcome alterTopic(
      BrokerServices b, String name, Change change, boolean validateOnly) {
    String problem = TopicNames.problem(name);
    if (problem != null) {
      return new Outcome(Errors.INVALID_TOPIC_EXCEPTION, problem);
    }
    Optional<LiveTopic> topic = b.topics().get(name);
    if (topic.isEmpty()) {
      return new Outcome(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + name + "' does not exist.");
    }
    Map<String, String> next;
    try {
      next = TopicConfigs.validate(change.apply(topic.get().config().explicit()));
    } catch (Refused e) {
      return new Outcome(e.errorCode, e.getMessage());
    } catch (InvalidConfigException e) {
      return new Outcome(Errors.INVALID_CONFIG, e.getMessage());
    }
    if (validateOnly) {
      return Outcome.OK;
    }
    try {
      b.topics().setConfigs(name, next);
      return Outcome.OK;
    } catch (IOException | RuntimeException e) {
      LOG.warn("Altering configs of topic {} failed", name, e);
      return new Outcome(Errors.KAFKA_STORAGE_ERROR, "Altering configs failed: " + e);
    }
  }

  /**
   * Alters a broker resource: Kelp has no dynamic broker configs, so any key is refused the way
   * Kafka refuses keys it cannot update dynamically.
   */
  public static Outcome alterBroker(BrokerServices b, String name, List<String> keys) {
    String problem = ConfigResources.brokerNameProblem(name, b.brokerId());
    if (problem != null) {
      return new Outcome(Errors.INVALID_REQUEST, problem);
    }
    if (!keys.isEmpty()) {
      return new Outcome(
          Errors.INVALID_REQUEST, "Cannot update these configs dynamically: " + keys);
    }
    return Outcome.OK;
  }

  /** The resources named more than once in a request, by (type, name). */
  public static <T> Set<String> duplicates(List<T> resources, Function<T, String> key) {
    Set<String> seen = new HashSet<>();
    Set<String> dup = new HashSet<>();
    for (T r : resources) {
      String k = key.apply(r);
      if (!seen.add(k)) {
        dup.add(k);
      }
    }
    return dup;
  }
}
