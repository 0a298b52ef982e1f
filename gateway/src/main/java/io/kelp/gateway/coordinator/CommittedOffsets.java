package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import io.kelp.gateway.topic.LiveTopic;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committing, fetching, deleting and expiring committed offsets, whatever the group's protocol.
 * Every change is in the store before it is visible or acknowledged.
 */
public final class CommittedOffsets {
  private static final Logger LOG = LoggerFactory.getLogger(CommittedOffsets.class);

  /** Kafka's offset.metadata.max.bytes default: longer metadata strings are refused. */
  public static final int MAX_METADATA_LENGTH = 4096;

  private final GroupCoordinator coordinator;

  public CommittedOffsets(GroupCoordinator coordinator) {
    this.coordinator = coordinator;
  }

  /** One partition's commit as the request carries it. */
  public record Commit(TopicPartition partition, long offset, int leaderEpoch, String metadata) {}

  /**
   * Commits offsets for a group. Returns an error code per partition, in request order; a group
   * level error (unknown member, stale generation...) is repeated for every partition, as Kafka
   * answers.
   *
   * @param retentionTimeMs the request's retention time (v2-4), -1 for the broker's default
   */
  public Map<TopicPartition, Short> commit(
      String groupId,
      String memberId,
      String groupInstanceId,
      int generationIdOrMemberEpoch,
      short apiVersion,
      long retentionTimeMs,
      List<Commit> commits) {
    if (coordinator.loading(groupId)) {
      return all(commits, Errors.COORDINATOR_LOAD_IN_PROGRESS);
    }
    Group group = coordinator.group(groupId);
    if (group == null) {
      if (generationIdOrMemberEpoch >= 0) {
        return all(
            commits, apiVersion >= 9 ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION);
      }
      group = ClassicGroups.getOrCreate(coordinator, groupId, true);
      if (group == null) {
        return all(commits, Errors.COORDINATOR_NOT_AVAILABLE);
      }
    }
    synchronized (group) {
      if (group.isDead() || coordinator.group(groupId) != group) {
        return all(commits, Errors.COORDINATOR_NOT_AVAILABLE);
      }
      short error =
          group.validateOffsetCommit(
              memberId == null ? "" : memberId,
              groupInstanceId,
              generationIdOrMemberEpoch,
              apiVersion);
      if (error != Errors.NONE) {
        return all(commits, error);
      }
      if (group instanceof ClassicGroup classic) {
        classic.touch(memberId);
      }
      return write(group, retentionTimeMs, commits);
    }
  }

  private Map<TopicPartition, Short> write(
      Group group, long retentionTimeMs, List<Commit> commits) {
    long now = coordinator.nowMs();
    long expire = retentionTimeMs < 0 ? OffsetAndMetadata.NO_EXPIRY : now + retentionTimeMs;
    Map<TopicPartition, Short> results = new LinkedHashMap<>();
    Map<TopicPartition, OffsetAndMetadata> accepted = new LinkedHashMap<>();
    for (Commit c : commits) {
      if (c.metadata() != null && c.metadata().length() > MAX_METADATA_LENGTH) {
        results.put(c.partition(), Errors.OFFSET_METADATA_TOO_LARGE);
      } else if (!partitionExists(c.partition())) {
        results.put(c.partition(), Errors.UNKNOWN_TOPIC_OR_PARTITION);
      } else {
        results.put(c.partition(), Errors.NONE);
        accepted.put(
            c.partition(),
            new OffsetAndMetadata(
                c.offset(),
                c.leaderEpoch(),
                c.metadata() == null ? "" : c.metadata(),
                now,
                expire));
      }
    }
    if (accepted.isEmpty()) {
      return results;
    }
    try {
      coordinator.store().writeOffsets(group.groupId(), accepted, List.of());
    } catch (IOException | RuntimeException e) {
      LOG.warn("Group {}: storing {} offset commits failed", group.groupId(), accepted.size(), e);
      for (TopicPartition tp : accepted.keySet()) {
        results.put(tp, Errors.NOT_COORDINATOR);
      }
      return results;
    }
    group.offsets().putAll(accepted);
    return results;
  }

  private boolean partitionExists(TopicPartition tp) {
    Optional<LiveTopic> topic = coordinator.topics().get(tp.topic());
    return topic.isPresent() && tp.partition() >= 0 && tp.partition() < topic.get().partitions();
  }

  private static Map<TopicPartition, Short> all(List<Commit> commits, short error) {
    Map<TopicPartition, Short> results = new LinkedHashMap<>();
    for (Commit c : commits) {
      results.put(c.partition(), error);
    }
    return results;
  }

  /** The answer to an OffsetFetch for one group. */
  public record Fetched(short error, Map<TopicPartition, OffsetAndMetadata> offsets) {}

  /**
   * The committed offsets of {@code partitions} (null: every partition with a committed offset);
   * partitions without one map to null. An unknown group has no offsets and no error; a group not
   * read back from the store yet has COORDINATOR_LOAD_IN_PROGRESS, with the partitions asked for
   * mapped to null.
   */
  public Fetched fetch(
      String groupId, String memberId, int memberEpoch, Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    if (coordinator.loading(groupId)) {
      if (partitions != null) {
        partitions.forEach(tp -> out.put(tp, null));
      }
      return new Fetched(Errors.COORDINATOR_LOAD_IN_PROGRESS, out);
    }
    Group group = coordinator.group(groupId);
    if (group == null) {
      if (partitions != null) {
        partitions.forEach(tp -> out.put(tp, null));
      }
      return new Fetched(Errors.NONE, out);
    }
    synchronized (group) {
      if (memberId != null) {
        short error = group.validateOffsetFetch(memberId, memberEpoch);
        if (error != Errors.NONE) {
          return new Fetched(error, out);
        }
      }
      if (group.isDead()) {
        if (partitions != null) {
          partitions.forEach(tp -> out.put(tp, null));
        }
        return new Fetched(Errors.NONE, out);
      }
      if (partitions == null) {
        List<TopicPartition> sorted = new ArrayList<>(group.offsets().keySet());
        sorted.sort(
            (a, b) ->
                a.topic().equals(b.topic())
                    ? Integer.compare(a.partition(), b.partition())
                    : a.topic().compareTo(b.topic()));
        for (TopicPartition tp : sorted) {
          out.put(tp, group.offsets().get(tp));
        }
      } else {
        for (TopicPartition tp : partitions) {
          out.put(tp, group.offsets().get(tp));
        }
      }
      return new Fetched(Errors.NONE, out);
    }
  }

  /** The answer to an OffsetDelete: a group error, or an error per partition. */
  public record Deleted(short error, Map<TopicPartition, Short> partitions) {}

  /**
   * Deletes committed offsets of a group. A non-empty classic group may only lose offsets of topics
   * none of its members subscribes to (GROUP_SUBSCRIBED_TO_TOPIC otherwise).
   */
  public Deleted delete(String groupId, List<TopicPartition> partitions) {
    if (coordinator.loading(groupId)) {
      return new Deleted(Errors.COORDINATOR_LOAD_IN_PROGRESS, Map.of());
    }
    Group group = coordinator.group(groupId);
    if (group == null) {
      return new Deleted(Errors.GROUP_ID_NOT_FOUND, Map.of());
    }
    synchronized (group) {
      if (group.isDead()) {
        return new Deleted(Errors.GROUP_ID_NOT_FOUND, Map.of());
      }
      if (!group.isEmpty()
          && group instanceof ClassicGroup
          && !"consumer".equals(group.protocolType())) {
        return new Deleted(Errors.NON_EMPTY_GROUP, Map.of());
      }
      Map<TopicPartition, Short> results = new LinkedHashMap<>();
      List<TopicPartition> toDelete = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        if (!group.isEmpty() && group.isSubscribedToTopic(tp.topic())) {
          results.put(tp, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
        } else {
          results.put(tp, Errors.NONE);
          if (group.offsets().containsKey(tp)) {
            toDelete.add(tp);
          }
        }
      }
      if (!toDelete.isEmpty()) {
        try {
          coordinator.store().writeOffsets(groupId, Map.of(), toDelete);
        } catch (IOException | RuntimeException e) {
          LOG.warn("Group {}: deleting offsets failed", groupId, e);
          return new Deleted(Errors.NOT_COORDINATOR, Map.of());
        }
        toDelete.forEach(group.offsets()::remove);
      }
      return new Deleted(Errors.NONE, results);
    }
  }

  /**
   * Deletes empty groups with their offsets (DeleteGroups). Returns the error per group:
   * GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, or NONE once the group is gone from the store.
   */
  public Map<String, Short> deleteGroups(List<String> groupIds) {
    Map<String, Short> results = new LinkedHashMap<>();
    for (String id : groupIds) {
      results.put(id, deleteGroup(id));
    }
    return results;
  }

  private short deleteGroup(String groupId) {
    if (groupId == null || groupId.isEmpty()) {
      return Errors.INVALID_GROUP_ID;
    }
    if (coordinator.loading(groupId)) {
      return Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }
    Group group = coordinator.group(groupId);
    if (group == null) {
      return Errors.GROUP_ID_NOT_FOUND;
    }
    synchronized (group) {
      if (group.isDead()) {
        return Errors.GROUP_ID_NOT_FOUND;
      }
      if (!group.isEmpty()) {
        return Errors.NON_EMPTY_GROUP;
      }
      try {
        coordinator.store().deleteGroup(groupId);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Group {}: deleting it from the store failed", groupId, e);
        return Errors.NOT_COORDINATOR;
      }
      group.markDead();
      group.offsets().clear();
      coordinator.remove(group);
      LOG.info("Group {} deleted", groupId);
      return Errors.NONE;
    }
  }

  /**
   * Removes every group's committed offsets of a deleted topic, so a topic created later with the
   * same name starts without them. Failures are logged; the periodic expiry retries.
   */
  public void removeTopic(String topic) {
    for (Group group : coordinator.groups()) {
      synchronized (group) {
        List<TopicPartition> gone = new ArrayList<>();
        for (TopicPartition tp : group.offsets().keySet()) {
          if (tp.topic().equals(topic)) {
            gone.add(tp);
          }
        }
        if (gone.isEmpty() || group.isDead()) {
          continue;
        }
        try {
          coordinator.store().writeOffsets(group.groupId(), Map.of(), gone);
          gone.forEach(group.offsets()::remove);
        } catch (IOException e) {
          // the store is unreachable (it has retried already): one line, not a stack per group
          LOG.warn(
              "Group {}: removing offsets of deleted topic {} failed: {}",
              group.groupId(),
              topic,
              e.toString());
        } catch (RuntimeException e) {
          LOG.warn(
              "Group {}: removing offsets of deleted topic {} failed", group.groupId(), topic, e);
        }
      }
    }
  }

  /**
   * Removes expired offsets (offsets.retention.minutes once the group is empty, or the commit's own
   * expiry time), offsets of topics that no longer exist, and empty groups left without offsets.
   * Called periodically.
   */
  public void expire() {
    long now = coordinator.nowMs();
    long retention = coordinator.config().offsetsRetentionMs();
    for (Group group : coordinator.groups()) {
      synchronized (group) {
        if (group.isDead()) {
          continue;
        }
        List<TopicPartition> expired = new ArrayList<>();
        Map<String, Boolean> topicExists = new HashMap<>();
        long emptySince = group.isEmpty() ? emptySinceMs(group) : Long.MAX_VALUE;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : group.offsets().entrySet()) {
          OffsetAndMetadata o = e.getValue();
          boolean exists =
              topicExists.computeIfAbsent(
                  e.getKey().topic(), t -> coordinator.topics().get(t).isPresent());
          boolean byExpiry = o.expireTimestampMs() >= 0 && o.expireTimestampMs() <= now;
          boolean byRetention =
              o.expireTimestampMs() < 0
                  && emptySince != Long.MAX_VALUE
                  && Math.max(emptySince, o.commitTimestampMs()) + retention <= now;
          if (!exists || byExpiry || byRetention) {
            expired.add(e.getKey());
          }
        }
        try {
          if (!expired.isEmpty()) {
            coordinator.store().writeOffsets(group.groupId(), Map.of(), expired);
            expired.forEach(group.offsets()::remove);
            LOG.info("Group {}: removed {} expired offsets", group.groupId(), expired.size());
          }
          if (group.isEmpty() && group.offsets().isEmpty()) {
            coordinator.store().deleteGroup(group.groupId());
            group.markDead();
            coordinator.remove(group);
            LOG.info("Group {} is empty and has no offsets left: removed", group.groupId());
          }
        } catch (IOException e) {
          LOG.warn(
              "Group {}: expiring offsets failed, will retry: {}", group.groupId(), e.toString());
        } catch (RuntimeException e) {
          LOG.warn("Group {}: expiring offsets failed; will retry", group.groupId(), e);
        }
      }
    }
  }

  private static long emptySinceMs(Group group) {
    return group instanceof ClassicGroup classic ? classic.stateTimestampMs() : 0;
  }
}
