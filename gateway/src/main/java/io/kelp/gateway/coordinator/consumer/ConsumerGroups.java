package io.kelp.gateway.coordinator.consumer;

import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.Group;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry points of the consumer group protocol on a {@link GroupCoordinator}: heartbeats (joins,
 * leaves and everything between) and the lookups ConsumerGroupDescribe needs. Each heartbeat
 * validates the request as Kafka does before it reaches a group, finds or creates the group, lets
 * the group decide under its monitor and writes the group's state to the store before answering.
 * Callers run these methods off the network threads: they may write to the store.
 */
public final class ConsumerGroups {
  /** A write at least this long restarts the session of the member whose heartbeat waited. */
  static final long SLOW_WRITE_MS = 100;

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroups.class);

  /** The server assignors Kelp has, by name. */
  private static final Map<String, ServerAssignor> ASSIGNORS =
      Map.of(UniformAssignor.NAME, new UniformAssignor(), RangeAssignor.NAME, new RangeAssignor());

  private ConsumerGroups() {}

  /** Teaches the coordinator to read consumer groups back from the store; call before load(). */
  public static void register(GroupCoordinator coordinator) {
    coordinator.registerLoader(ConsumerGroup.TYPE, ConsumerGroupJson::read);
  }

  /**
   * Handles one ConsumerGroupHeartbeat.
   *
   * @throws GroupError with the error code and message the member gets
   * @throws IOException when the group's new state could not be written; the member retries
   */
  public static HeartbeatResult heartbeat(
      GroupCoordinator coordinator, Heartbeat hb, short apiVersion) throws IOException {
    validate(hb, apiVersion, coordinator.config());
    boolean leaving =
        hb.memberEpoch() == ConsumerGroup.LEAVE_EPOCH
            || hb.memberEpoch() == ConsumerGroup.LEAVE_STATIC_EPOCH;
    while (true) {
      ConsumerGroup group =
          leaving ? existing(coordinator, hb.groupId()) : groupFor(coordinator, hb);
      synchronized (group) {
        if (group.isDead()) {
          continue; // deleted or replaced meanwhile: look it up again
        }
        HeartbeatResult result =
            leaving
                ? group.leave(hb.memberId(), hb.instanceId(), hb.memberEpoch())
                : group.heartbeat(hb);
        long before = coordinator.nowMs();
        group.persist();
        if (!leaving && coordinator.nowMs() - before >= SLOW_WRITE_MS) {
          // The member waited on the store (a new group's claim on a slow filer): its session
          // counts from the answer, or it would be fenced for the broker's wait, not its own.
          group.restartSession(result.memberId());
        }
        return result;
      }
    }
  }

  /**
   * The consumer group with this id.
   *
   * @throws GroupError GROUP_ID_NOT_FOUND when there is none, or the group is a classic one;
   *     COORDINATOR_LOAD_IN_PROGRESS while it is not read back from the store yet
   */
  public static ConsumerGroup existing(GroupCoordinator coordinator, String groupId) {
    checkLoaded(coordinator, groupId);
    Group g = coordinator.group(groupId);
    if (g == null) {
      throw new GroupError(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
    }
    if (!(g instanceof ConsumerGroup c)) {
      throw notConsumerGroup(groupId);
    }
    return c;
  }

  /**
   * @throws GroupError COORDINATOR_LOAD_IN_PROGRESS while the group is not read back yet
   */
  private static void checkLoaded(GroupCoordinator coordinator, String groupId) {
    if (coordinator.loading(groupId)) {
      throw new GroupError(
          Errors.COORDINATOR_LOAD_IN_PROGRESS,
          "Group " + groupId + " is still being read back from the store.");
    }
  }

  private static ConsumerGroup groupFor(GroupCoordinator coordinator, Heartbeat hb) {
    String groupId = hb.groupId();
    checkLoaded(coordinator, groupId);
    boolean create = hb.memberEpoch() == 0;
    while (true) {
      Group g = coordinator.group(groupId);
      if (g == null) {
        if (!create) {
          throw new GroupError(
              Errors.GROUP_ID_NOT_FOUND, "Consumer group " + groupId + " not found.");
        }
        Group now = coordinator.putIfAbsent(new ConsumerGroup(groupId, coordinator));
        if (now instanceof ConsumerGroup c) {
          return c;
        }
        continue;
      }
      if (g instanceof ConsumerGroup c) {
        return c;
      }
      if (create) {
        ConsumerGroup replacement = replaceEmptyClassicGroup(coordinator, g);
        if (replacement != null) {
          return replacement;
        }
      }
      throw notConsumerGroup(groupId);
    }
  }

  /**
   * An empty classic group (one that only ever had commits, or whose members all left) gives way to
   * a consumer group that keeps its committed offsets, as in Kafka. Returns null if it is not
   * empty.
   */
  private static ConsumerGroup replaceEmptyClassicGroup(GroupCoordinator coordinator, Group old) {
    synchronized (old) {
      if (!old.isEmpty() || old.isDead() || coordinator.group(old.groupId()) != old) {
        return null;
      }
      ConsumerGroup replacement = new ConsumerGroup(old.groupId(), coordinator);
      synchronized (replacement) {
        replacement.offsets().putAll(old.offsets());
      }
      if (!coordinator.replace(old, replacement)) {
        return null;
      }
      // Requests still holding the classic group now get a retriable error instead of
      // changing a group nobody will see again.
      old.markDead();
      Group now = replacement;
      LOG.info("Group {}: empty classic group replaced by a consumer group", old.groupId());
      return now instanceof ConsumerGroup c ? c : null;
    }
  }

  private static GroupError notConsumerGroup(String groupId) {
    return new GroupError(
        Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a consumer group.");
  }

  /** Kafka's checks of a heartbeat before it reaches the group, with its messages. */
  static void validate(Heartbeat hb, short apiVersion, GroupConfig config) {
    int epoch = hb.memberEpoch();
    // v1 (KIP-1082): the client picks its member id, so it is never empty.
    if ((apiVersion >= 1 || epoch > 0 || epoch == ConsumerGroup.LEAVE_EPOCH)
        && hb.memberId().isEmpty()) {
      throw invalid("MemberId can't be empty.");
    }
    if (hb.groupId().isEmpty()) {
      throw invalid("GroupId can't be empty.");
    }
    if (hb.instanceId() != null && hb.instanceId().isEmpty()) {
      throw invalid("InstanceId can't be empty.");
    }
    if (hb.rackId() != null && hb.rackId().isEmpty()) {
      throw invalid("RackId can't be empty.");
    }
    if (epoch == 0) {
      if (hb.rebalanceTimeoutMs() == -1) {
        throw invalid("RebalanceTimeoutMs must be provided in first request.");
      }
      if (hb.ownedPartitions() == null || !hb.ownedPartitions().isEmpty()) {
        throw invalid("TopicPartitions must be empty when (re-)joining.");
      }
      if (hb.subscribedTopicNames() == null && hb.subscribedTopicRegex() == null) {
        throw invalid(
            "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when"
                + " (re-)joining.");
      }
    } else if (epoch == ConsumerGroup.LEAVE_STATIC_EPOCH) {
      if (hb.instanceId() == null) {
        throw invalid("InstanceId can't be null.");
      }
    } else if (epoch < ConsumerGroup.LEAVE_STATIC_EPOCH) {
      throw invalid("MemberEpoch is invalid.");
    }
    if (hb.subscribedTopicRegex() != null && !hb.subscribedTopicRegex().isEmpty()) {
      try {
        Pattern.compile(hb.subscribedTopicRegex());
      } catch (PatternSyntaxException e) {
        throw new GroupError(
            Errors.INVALID_REGULAR_EXPRESSION,
            "SubscribedTopicRegex `"
                + hb.subscribedTopicRegex()
                + "` is not a valid regular expression: "
                + e.getDescription()
                + ".");
      }
    }
    if (hb.serverAssignor() != null && !supported(config).contains(hb.serverAssignor())) {
      throw new GroupError(
          Errors.UNSUPPORTED_ASSIGNOR,
          "ServerAssignor "
              + hb.serverAssignor()
              + " is not supported. Supported assignors: "
              + String.join(", ", supported(config))
              + ".");
    }
  }

  private static GroupError invalid(String message) {
    return new GroupError(Errors.INVALID_REQUEST, message);
  }

  /** The configured assignors Kelp has, in configured order. */
  static List<String> supported(GroupConfig config) {
    return config.consumerAssignors().stream().filter(ASSIGNORS::containsKey).toList();
  }

  /** The assignor called {@code name}, else the first configured one Kelp has. */
  static ServerAssignor assignor(String name, GroupConfig config) {
    ServerAssignor a = name == null ? null : ASSIGNORS.get(name);
    if (a != null) {
      return a;
    }
    List<String> names = supported(config);
    return ASSIGNORS.get(names.isEmpty() ? UniformAssignor.NAME : names.get(0));
  }

  /** A member id as Kafka makes them: a random UUID in URL-safe base64. */
  static String newMemberId() {
    UUID u = UUID.randomUUID();
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
  }
}
