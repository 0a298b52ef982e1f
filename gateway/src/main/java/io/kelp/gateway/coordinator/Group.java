package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import java.util.HashMap;
import java.util.Map;

/**
 * A consumer group as its coordinator keeps it: membership (in a subclass, one per group protocol)
 * and committed offsets (here, shared by every kind of group).
 *
 * <p>Threading: every read and change of a group, its members and its offsets happens while holding
 * the group's monitor ({@code synchronized (group)}). Store writes for the group happen under it
 * too, so the store sees a group's changes in the order they were made.
 */
public abstract class Group {
  private final String groupId;
  private final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();

  protected Group(String groupId) {
    this.groupId = groupId;
  }

  public final String groupId() {
    return groupId;
  }

  /** The group type as ListGroups v5 and ConsumerGroupDescribe name it: classic or consumer. */
  public abstract String groupType();

  /** The state as ListGroups and DescribeGroups name it (Empty, Stable, PreparingRebalance...). */
  public abstract String state();

  /** The protocol type of the members (consumer, connect, ...); empty when none was set. */
  public abstract String protocolType();

  /** True when the group has no members. */
  public abstract boolean isEmpty();

  /** True once the group was deleted or emptied for good; a dead group takes no more requests. */
  public abstract boolean isDead();

  /**
   * The error code for an OffsetCommit from this member: NONE when the commit may go ahead. An
   * empty member id with generation -1 is a commit from outside the group (assign() consumers,
   * admin tools); it is allowed only while the group has no members.
   */
  public abstract short validateOffsetCommit(
      String memberId, String groupInstanceId, int generationIdOrMemberEpoch, short apiVersion);

  /**
   * The error code for an OffsetFetch v9+ that names a member and member epoch (null member id: a
   * fetch from outside the group, always allowed).
   */
  public abstract short validateOffsetFetch(String memberId, int memberEpoch);

  /**
   * Runs the group's timeouts (sessions, rebalances) as of {@code nowMs}; called by the
   * coordinator's sweep, without the monitor held.
   */
  public void tick(long nowMs) {}

  /**
   * False when {@link #tick} has nothing to do, so the sweep need not hand it to a timer thread
   * (most groups at rest); read without the monitor, so it may miss a change made just before,
   * which the next sweep sees.
   */
  public boolean hasTimeouts() {
    return false;
  }

  /**
   * True when a member of the group consumes {@code topic}: its committed offsets may then not be
   * deleted (OffsetDelete answers GROUP_SUBSCRIBED_TO_TOPIC).
   */
  public abstract boolean isSubscribedToTopic(String topic);

  /** Marks the group deleted; requests that still hold it get a retriable error. */
  public abstract void markDead();

  /** The committed offsets; read and change them only while holding the group's monitor. */
  public final Map<TopicPartition, OffsetAndMetadata> offsets() {
    return offsets;
  }
}
