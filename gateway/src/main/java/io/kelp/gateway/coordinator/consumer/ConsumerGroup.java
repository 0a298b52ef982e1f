package io.kelp.gateway.coordinator.consumer;

import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.Group;
import io.kelp.gateway.coordinator.GroupCoordinator;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A group of the consumer group protocol (KIP-848). The group epoch counts changes of membership
 * and subscriptions; each bump makes the assignor compute a new target assignment (stamped with
 * that epoch), and every member then reconciles towards its part of the target, one heartbeat at a
 * time (see {@link Reconciliation}).
 *
 * <p>This class owns the group's state (epochs, members, static instance ids, the target assignment
 * and the topics it was computed for) and answers for the group as a whole: its state, offset
 * commit and fetch checks, and writing it to the store. {@link ConsumerGroupHeartbeat} handles
 * heartbeats and leaves, {@link TargetAssignment} computes the target assignment, {@link
 * MemberTimeouts} fences members that miss their deadlines, {@link ConsumerGroupJson} is the stored
 * form.
 *
 * <p>All methods must be called holding the group's monitor; the helpers are called only from them,
 * so they run under it too. Session and revocation deadlines are checked by tasks on the
 * coordinator's timer, which take the monitor themselves.
 */
public final class ConsumerGroup extends Group {
  public static final String TYPE = "consumer";
  static final int LEAVE_EPOCH = -1;
  static final int LEAVE_STATIC_EPOCH = -2;

  /** A subscribed topic as the target assignment was computed for. */
  record TopicMeta(UUID id, int partitions) {}

  private final GroupCoordinator coordinator;
  final Map<String, ConsumerGroupMember> members = new TreeMap<>();
  final Map<String, String> staticMembers = new HashMap<>();
  final Map<String, Map<UUID, Set<Integer>>> target = new HashMap<>();
  Map<String, TopicMeta> subscribed = Map.of();
  int groupEpoch;
  int assignmentEpoch;
  private byte[] lastWritten;
  private boolean dead;
  private final ConsumerGroupHeartbeat heartbeats;
  private final TargetAssignment assignment;
  private final MemberTimeouts timeouts;

  public ConsumerGroup(String groupId, GroupCoordinator coordinator) {
    super(groupId);
    this.coordinator = coordinator;
    this.heartbeats = new ConsumerGroupHeartbeat(this, coordinator);
    this.assignment = new TargetAssignment(this, coordinator);
    this.timeouts = new MemberTimeouts(this, coordinator);
  }

  @Override
  public String groupType() {
    return TYPE;
  }

  @Override
  public String state() {
    if (dead) {
      return "Dead";
    }
    if (members.isEmpty()) {
      return "Empty";
    }
    if (groupEpoch > assignmentEpoch) {
      return "Assigning";
    }
    for (ConsumerGroupMember m : members.values()) {
      if (m.state != MemberState.STABLE || m.memberEpoch != assignmentEpoch) {
        return "Reconciling";
      }
    }
    return "Stable";
  }

  @Override
  public String protocolType() {
    return "consumer";
  }

  @Override
  public boolean isEmpty() {
    return members.isEmpty();
  }

  @Override
  public boolean isDead() {
    return dead;
  }

  @Override
  public boolean isSubscribedToTopic(String topic) {
    return subscribed.containsKey(topic);
  }

  /** Marks the group deleted: it takes no more requests and its timers stop. */
  @Override
  public void markDead() {
    dead = true;
    timeouts.cancelAll();
  }

  public int groupEpoch() {
    return groupEpoch;
  }

  public int assignmentEpoch() {
    return assignmentEpoch;
  }

  /** Every member, by id. */
  public Map<String, ConsumerGroupMember> members() {
    return Collections.unmodifiableMap(members);
  }

  /** The member's part of the target assignment. */
  public Map<UUID, Set<Integer>> targetAssignment(String memberId) {
    return target.getOrDefault(memberId, Partitions.NONE);
  }

  // ---- offsets (OffsetCommit v9+ and OffsetFetch v9+ name a member and its epoch)

  @Override
  public short validateOffsetCommit(
      String memberId, String groupInstanceId, int memberEpoch, short apiVersion) {
    // Commits from outside the group (admin tools, assign() consumers) only while it is empty.
    if (memberEpoch < 0 && members.isEmpty()) {
      return Errors.NONE;
    }
    ConsumerGroupMember m = members.get(memberId);
    if (m == null) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    if (apiVersion < 9) {
      // Members of this protocol commit with member epochs, which only v9+ carries.
      return Errors.UNSUPPORTED_VERSION;
    }
    return memberEpoch == m.memberEpoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
  }

  @Override
  public short validateOffsetFetch(String memberId, int memberEpoch) {
    if (memberId == null && memberEpoch < 0) {
      return Errors.NONE;
    }
    ConsumerGroupMember m = members.get(memberId);
    if (m == null) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    return memberEpoch == m.memberEpoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
  }

  // ---- heartbeats

  /**
   * Handles a heartbeat of a joining or present member (epoch 0 or above); see {@link
   * ConsumerGroupHeartbeat#heartbeat}.
   *
   * @throws GroupError when the member is unknown or fenced, or the group full
   */
  HeartbeatResult heartbeat(Heartbeat hb) {
    return heartbeats.heartbeat(hb);
  }

  /** Handles a leave: epoch -1 removes the member; -2 keeps a static member's place for now. */
  HeartbeatResult leave(String memberId, String instanceId, int memberEpoch) {
    return heartbeats.leave(memberId, instanceId, memberEpoch);
  }

  // ---- membership

  /** Removes a member and bumps the group epoch so that its partitions are assigned again. */
  void fence(ConsumerGroupMember m) {
    forget(m);
    target.remove(m.memberId);
    subscribed = computeSubscribed();
    groupEpoch++;
  }

  /** Removes a member and its timer, leaving the epochs and the target assignment alone. */
  void forget(ConsumerGroupMember m) {
    members.remove(m.memberId);
    if (m.instanceId != null) {
      staticMembers.remove(m.instanceId, m.memberId);
    }
    timeouts.cancel(m.memberId);
  }

  /** The member holding a static instance id, or null. */
  ConsumerGroupMember staticMember(String instanceId) {
    String id = staticMembers.get(instanceId);
    return id == null ? null : members.get(id);
  }

  /**
   * Fences every member whose session timed out or that did not revoke partitions within its
   * rebalance timeout. Returns true when a member was fenced.
   */
  public boolean expireMembers() {
    return timeouts.expire();
  }

  /** (Re)arms the timer that checks this member's deadlines. */
  void scheduleTimeout(ConsumerGroupMember m) {
    timeouts.schedule(m);
  }

  /** Starts the member's session timeout over from now, if it is still a member. */
  void restartSession(String memberId) {
    ConsumerGroupMember m = members.get(memberId);
    if (m != null) {
      m.sessionDeadlineMs = coordinator.nowMs() + coordinator.config().consumerSessionTimeoutMs();
      timeouts.schedule(m);
    }
  }

  // ---- target assignment

  /** The existing topics some member subscribes to, by name or by regex. */
  Map<String, TopicMeta> computeSubscribed() {
    return assignment.subscribedTopics();
  }

  /** Computes a new target assignment for the current group epoch. */
  void computeTargetAssignment() {
    assignment.compute();
  }

  /** The assignor most members ask for (ties by name), else the configured default. */
  public String preferredAssignor() {
    return assignment.preferredAssignor();
  }

  // ---- the store

  /**
   * Writes the group's state to the store if it changed since the last write. Call holding the
   * monitor, off the network threads.
   */
  void persist() throws IOException {
    byte[] bytes = ConsumerGroupJson.write(this);
    if (!Arrays.equals(bytes, lastWritten)) {
      coordinator.store().writeMetadata(groupId(), bytes);
      lastWritten = bytes;
    }
  }

  /** Records what was read back from the store, so an unchanged group is not rewritten. */
  void markWritten(byte[] bytes) {
    lastWritten = bytes;
  }

  GroupCoordinator coordinator() {
    return coordinator;
  }
}
