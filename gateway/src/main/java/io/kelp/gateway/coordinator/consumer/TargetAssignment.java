package io.kelp.gateway.coordinator.consumer;

import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.consumer.ConsumerGroup.TopicMeta;
import io.kelp.gateway.topic.LiveTopic;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes a consumer group's target assignment: which existing topics its members subscribe to (by
 * name or by regex), which server assignor the group uses, and the assignor's answer, stamped with
 * the group epoch. {@link ConsumerGroup} keeps the target and the subscribed topics; this keeps
 * only the topics each regex matched when the subscriptions were last computed, which the next
 * assignment uses. Called only from the group's methods, under its monitor.
 */
final class TargetAssignment {
  // The group's story is told by one logger, whichever class tells it.
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroup.class);

  private final ConsumerGroup group;
  private final GroupCoordinator coordinator;
  private final Map<String, Set<String>> regexMatches = new HashMap<>();

  TargetAssignment(ConsumerGroup group, GroupCoordinator coordinator) {
    this.group = group;
    this.coordinator = coordinator;
  }

  /** The existing topics some member subscribes to, by name or by regex. */
  Map<String, TopicMeta> subscribedTopics() {
    regexMatches.clear();
    Set<String> names = new TreeSet<>();
    for (ConsumerGroupMember m : group.members.values()) {
      names.addAll(m.subscribedTopicNames);
      if (m.subscribedTopicRegex != null) {
        names.addAll(regexMatches.computeIfAbsent(m.subscribedTopicRegex, this::matching));
      }
    }
    Map<String, TopicMeta> out = new TreeMap<>();
    for (String name : names) {
      Optional<LiveTopic> t = coordinator.topics().get(name);
      t.ifPresent(topic -> out.put(name, new TopicMeta(topic.topicId(), topic.partitions())));
    }
    return out;
  }

  private Set<String> matching(String regex) {
    Pattern p = Pattern.compile(regex);
    Set<String> out = new HashSet<>();
    for (LiveTopic t : coordinator.topics().list()) {
      if (p.matcher(t.name()).matches()) {
        out.add(t.name());
      }
    }
    return out;
  }

  /**
   * Replaces the group's target assignment with the assignor's answer for the group's members and
   * subscribed topics, each member keeping what it had in the previous target where the assignor
   * allows, and moves the assignment epoch up to the group epoch.
   */
  void compute() {
    ServerAssignor assignor = ConsumerGroups.assignor(preferredAssignor(), coordinator.config());
    TreeMap<String, AssignmentSpec.Member> specMembers = new TreeMap<>();
    Map<UUID, Integer> counts = new HashMap<>();
    Map<String, TopicMeta> subscribed = group.subscribed;
    subscribed.values().forEach(t -> counts.put(t.id(), t.partitions()));
    for (ConsumerGroupMember m : group.members.values()) {
      Set<UUID> ids = new HashSet<>();
      for (String name : m.subscribedTopicNames) {
        TopicMeta t = subscribed.get(name);
        if (t != null) {
          ids.add(t.id());
        }
      }
      if (m.subscribedTopicRegex != null) {
        for (String name : regexMatches.getOrDefault(m.subscribedTopicRegex, Set.of())) {
          TopicMeta t = subscribed.get(name);
          if (t != null) {
            ids.add(t.id());
          }
        }
      }
      specMembers.put(
          m.memberId, new AssignmentSpec.Member(ids, group.targetAssignment(m.memberId)));
    }
    Map<String, Map<UUID, Set<Integer>>> next =
        assignor.assign(new AssignmentSpec(specMembers, counts));
    group.target.clear();
    next.forEach((id, a) -> group.target.put(id, Partitions.copy(a)));
    group.assignmentEpoch = group.groupEpoch;
    LOG.info(
        "Group {}: target assignment for epoch {} by the {} assignor",
        group.groupId(),
        group.assignmentEpoch,
        assignor.name());
  }

  /** The assignor most members ask for (ties by name), else the configured default. */
  String preferredAssignor() {
    Map<String, Integer> votes = new TreeMap<>();
    for (ConsumerGroupMember m : group.members.values()) {
      if (m.serverAssignor != null) {
        votes.merge(m.serverAssignor, 1, Integer::sum);
      }
    }
    String best = null;
    for (Map.Entry<String, Integer> e : votes.entrySet()) {
      if (best == null || e.getValue() > votes.get(best)) {
        best = e.getKey();
      }
    }
    return best != null ? best : coordinator.config().consumerAssignors().get(0);
  }
}
