package io.kelp.gateway.coordinator.consumer;

import io.kelp.gateway.api.Errors;
import io.kelp.gateway.coordinator.Group;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.topic.LiveTopic;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group of the consumer group protocol (KIP-848). The group epoch counts changes of membership
 * and subscriptions; each bump makes the assignor compute a new target assignment (stamped with
 * that epoch), and every member then reconciles towards its part of the target, one heartbeat at a
 * time (see {@link Reconciliation}).
 *
 * <p>All methods must be called holding the group's monitor. Session and revocation deadlines are
 * checked by tasks on the coordinator's timer, which take the monitor themselves.
 */
public final class ConsumerGroup extends Group {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroup.class);

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
  private final Map<String, Set<String>> regexMatches = new HashMap<>();
  private final Map<String, ScheduledFuture<?>> timers = new HashMap<>();
  private byte[] lastWritten;
  private boolean dead;

  public ConsumerGroup(String groupId, GroupCoordinator coordinator) {
    super(groupId);
    this.coordinator = coordinator;
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
    timers.values().forEach(f -> f.cancel(false));
    timers.clear();
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
   * Handles a heartbeat of a joining or present member (epoch 0 or above): updates the member,
   * bumps the group epoch if membership or subscriptions changed, computes a new target assignment
   * if the epoch moved, and reconciles the member one step.
   *
   * @throws GroupError when the member is unknown or fenced, or the group full
   */
  HeartbeatResult heartbeat(Heartbeat hb) {
    long now = coordinator.nowMs();
    int max = coordinator.config().maxGroupSize();
    if (members.size() >= max && (hb.memberId().isEmpty() || !members.containsKey(hb.memberId()))) {
      throw new GroupError(
          Errors.GROUP_MAX_SIZE_REACHED,
          "The consumer group has reached its maximum capacity of " + max + " members.");
    }
    String memberId = hb.memberId().isEmpty() ? ConsumerGroups.newMemberId() : hb.memberId();
    boolean joining = hb.memberEpoch() == 0;
    ConsumerGroupMember existing;
    ConsumerGroupMember replaced = null;
    if (hb.instanceId() == null) {
      existing = members.get(memberId);
      if (existing == null && !joining) {
        throw unknownMember(memberId);
      }
      if (existing != null) {
        checkEpoch(existing, hb.memberEpoch(), hb.ownedPartitions());
      }
    } else {
      ConsumerGroupMember old = staticMember(hb.instanceId());
      if (joining && old != null) {
        if (old.memberEpoch != LEAVE_STATIC_EPOCH) {
          throw new GroupError(
              Errors.UNRELEASED_INSTANCE_ID,
              "Static member "
                  + memberId
                  + " with instance id "
                  + hb.instanceId()
                  + " cannot join the group because the instance id is owned by "
                  + old.memberId
                  + " member.");
        }
        replaced = old;
        existing = null;
      } else if (joining) {
        existing = members.get(memberId);
      } else {
        checkStaticMember(old, memberId, hb.instanceId());
        checkEpoch(old, hb.memberEpoch(), hb.ownedPartitions());
        existing = old;
      }
    }
    ConsumerGroupMember member;
    if (replaced != null) {
      member = replaced.copy();
      member.memberId = memberId;
      member.memberEpoch = 0;
      member.previousMemberEpoch = 0;
      LOG.info(
          "Group {}: static member {} ({}) rejoins, replacing {}",
          groupId(),
          memberId,
          hb.instanceId(),
          replaced.memberId);
    } else if (existing != null) {
      member = existing.copy();
    } else {
      member = new ConsumerGroupMember(memberId);
      LOG.info("Group {}: member {} joins", groupId(), memberId);
    }
    boolean bump = update(member, hb) || (existing == null && replaced == null);
    return commit(hb, now, existing, replaced, member, bump);
  }

  private HeartbeatResult commit(
      Heartbeat hb,
      long now,
      ConsumerGroupMember existing,
      ConsumerGroupMember replaced,
      ConsumerGroupMember member,
      boolean bump) {
    if (replaced != null) {
      forget(replaced);
      Map<UUID, Set<Integer>> t = target.remove(replaced.memberId);
      if (t != null) {
        target.put(member.memberId, t);
      }
    }
    members.put(member.memberId, member);
    if (member.instanceId != null) {
      staticMembers.put(member.instanceId, member.memberId);
    }
    Map<String, TopicMeta> now2 = computeSubscribed();
    if (!now2.equals(subscribed)) {
      subscribed = now2;
      bump = true;
    }
    if (bump) {
      groupEpoch++;
      LOG.info("Group {}: epoch {}", groupId(), groupEpoch);
    }
    if (groupEpoch > assignmentEpoch) {
      computeTargetAssignment();
    }
    MemberState stateBefore = member.state;
    Map<UUID, Set<Integer>> assignedBefore = existing == null ? null : existing.assigned;
    Map<UUID, Set<Integer>> pendingBefore = member.pendingRevocation;
    Reconciliation.next(
        member,
        assignmentEpoch,
        targetAssignment(member.memberId),
        hb.ownedPartitions(),
        ownersOtherThan(member.memberId));
    if (member.state != MemberState.UNREVOKED_PARTITIONS) {
      member.revocationDeadlineMs = Long.MAX_VALUE;
    } else if (stateBefore != MemberState.UNREVOKED_PARTITIONS
        || !pendingBefore.equals(member.pendingRevocation)) {
      member.revocationDeadlineMs = now + Math.max(0, member.rebalanceTimeoutMs);
    }
    member.sessionDeadlineMs = now + coordinator.config().consumerSessionTimeoutMs();
    scheduleTimeout(member);
    boolean changed = !member.assigned.equals(assignedBefore);
    return new HeartbeatResult(
        member.memberId,
        member.memberEpoch,
        coordinator.config().consumerHeartbeatIntervalMs(),
        hb.isFull() || changed ? member.assigned : null);
  }

  /** Applies the heartbeat's changed fields; true when the subscription changed. */
  private static boolean update(ConsumerGroupMember m, Heartbeat hb) {
    boolean changed = false;
    if (hb.instanceId() != null) {
      m.instanceId = hb.instanceId();
    }
    if (hb.rackId() != null) {
      m.rackId = hb.rackId();
    }
    if (hb.rebalanceTimeoutMs() != -1) {
      m.rebalanceTimeoutMs = hb.rebalanceTimeoutMs();
    }
    if (hb.serverAssignor() != null && !hb.serverAssignor().equals(m.serverAssignor)) {
      m.serverAssignor = hb.serverAssignor();
      changed = true;
    }
    if (hb.subscribedTopicNames() != null
        && !hb.subscribedTopicNames().equals(m.subscribedTopicNames)) {
      m.subscribedTopicNames = List.copyOf(hb.subscribedTopicNames());
      changed = true;
    }
    if (hb.subscribedTopicRegex() != null) {
      String regex = hb.subscribedTopicRegex().isEmpty() ? null : hb.subscribedTopicRegex();
      if (!java.util.Objects.equals(regex, m.subscribedTopicRegex)) {
        m.subscribedTopicRegex = regex;
        changed = true;
      }
    }
    m.clientId = hb.clientId();
    m.clientHost = hb.clientHost();
    return changed;
  }

  /** Handles a leave: epoch -1 removes the member; -2 keeps a static member's place for now. */
  HeartbeatResult leave(String memberId, String instanceId, int memberEpoch) {
    ConsumerGroupMember m;
    if (instanceId == null) {
      m = members.get(memberId);
      if (m == null) {
        throw unknownMember(memberId);
      }
    } else {
      m = staticMember(instanceId);
      checkStaticMember(m, memberId, instanceId);
      if (memberEpoch == LEAVE_STATIC_EPOCH) {
        // The instance may come back within the session timeout and take its partitions back.
        LOG.info("Group {}: static member {} ({}) leaves for now", groupId(), memberId, instanceId);
        m.memberEpoch = LEAVE_STATIC_EPOCH;
        m.pendingRevocation = Partitions.NONE;
        m.revocationDeadlineMs = Long.MAX_VALUE;
        return new HeartbeatResult(m.memberId, LEAVE_STATIC_EPOCH, 0, null);
      }
    }
    LOG.info("Group {}: member {} leaves", groupId(), memberId);
    fence(m);
    return new HeartbeatResult(memberId, memberEpoch, 0, null);
  }

  /** Removes a member and bumps the group epoch so that its partitions are assigned again. */
  void fence(ConsumerGroupMember m) {
    forget(m);
    target.remove(m.memberId);
    subscribed = computeSubscribed();
    groupEpoch++;
  }

  private void forget(ConsumerGroupMember m) {
    members.remove(m.memberId);
    if (m.instanceId != null) {
      staticMembers.remove(m.instanceId, m.memberId);
    }
    ScheduledFuture<?> f = timers.remove(m.memberId);
    if (f != null) {
      f.cancel(false);
    }
  }

  /**
   * Fences every member whose session timed out or that did not revoke partitions within its
   * rebalance timeout. Returns true when a member was fenced.
   */
  public boolean expireMembers() {
    long now = coordinator.nowMs();
    boolean fenced = false;
    for (ConsumerGroupMember m : List.copyOf(members.values())) {
      if (now >= m.sessionDeadlineMs) {
        LOG.info("Group {}: {} fenced, its session timed out", groupId(), m);
        fence(m);
        fenced = true;
      } else if (now >= m.revocationDeadlineMs) {
        LOG.info("Group {}: {} fenced, it did not revoke partitions in time", groupId(), m);
        fence(m);
        fenced = true;
      }
    }
    return fenced;
  }

  /** (Re)arms the timer that checks this member's deadlines. */
  void scheduleTimeout(ConsumerGroupMember m) {
    ScheduledFuture<?> old = timers.remove(m.memberId);
    if (old != null) {
      old.cancel(false);
    }
    long at = Math.min(m.sessionDeadlineMs, m.revocationDeadlineMs);
    long delay = Math.max(0, at - coordinator.nowMs());
    timers.put(
        m.memberId, coordinator.timer().schedule(this::onTimer, delay + 1, TimeUnit.MILLISECONDS));
  }

  private void onTimer() {
    synchronized (this) {
      if (dead) {
        return;
      }
      try {
        if (expireMembers()) {
          persist();
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("Group {}: writing its state after fencing members failed", groupId(), e);
      }
    }
  }

  // ---- helpers

  private void checkEpoch(
      ConsumerGroupMember m, int received, Map<UUID, Set<Integer>> ownedPartitions) {
    if (received > m.memberEpoch) {
      throw fencedEpoch("greater", received, m.memberEpoch);
    }
    // The previous epoch is fine if the member owns no more than it is assigned: the response
    // that bumped its epoch may have been lost.
    if (received < m.memberEpoch
        && (received != m.previousMemberEpoch || !isSubset(ownedPartitions, m.assigned))) {
      throw fencedEpoch("smaller", received, m.memberEpoch);
    }
  }

  private static boolean isSubset(Map<UUID, Set<Integer>> owned, Map<UUID, Set<Integer>> of) {
    if (owned == null) {
      return false;
    }
    for (Map.Entry<UUID, Set<Integer>> e : owned.entrySet()) {
      Set<Integer> ps = of.get(e.getKey());
      if (!e.getValue().isEmpty() && (ps == null || !ps.containsAll(e.getValue()))) {
        return false;
      }
    }
    return true;
  }

  private static GroupError fencedEpoch(String which, int received, int known) {
    return new GroupError(
        Errors.FENCED_MEMBER_EPOCH,
        "The consumer group member has a "
            + which
            + " member epoch ("
            + received
            + ") than the one known by the group coordinator ("
            + known
            + "). The member must abandon all its partitions and rejoin.");
  }

  private void checkStaticMember(ConsumerGroupMember m, String memberId, String instanceId) {
    if (m == null) {
      throw new GroupError(Errors.UNKNOWN_MEMBER_ID, "Instance id " + instanceId + " is unknown.");
    }
    if (!m.memberId.equals(memberId)) {
      throw new GroupError(
          Errors.FENCED_INSTANCE_ID,
          "Static member "
              + memberId
              + " with instance id "
              + instanceId
              + " was fenced by member "
              + m.memberId
              + ".");
    }
  }

  private GroupError unknownMember(String memberId) {
    return new GroupError(
        Errors.UNKNOWN_MEMBER_ID,
        "Member " + memberId + " is not a member of group " + groupId() + ".");
  }

  private ConsumerGroupMember staticMember(String instanceId) {
    String id = staticMembers.get(instanceId);
    return id == null ? null : members.get(id);
  }

  /** The existing topics some member subscribes to, by name or by regex. */
  Map<String, TopicMeta> computeSubscribed() {
    regexMatches.clear();
    Set<String> names = new TreeSet<>();
    for (ConsumerGroupMember m : members.values()) {
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

  private void computeTargetAssignment() {
    ServerAssignor assignor = ConsumerGroups.assignor(preferredAssignor(), coordinator.config());
    TreeMap<String, AssignmentSpec.Member> specMembers = new TreeMap<>();
    Map<UUID, Integer> counts = new HashMap<>();
    subscribed.values().forEach(t -> counts.put(t.id(), t.partitions()));
    for (ConsumerGroupMember m : members.values()) {
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
      specMembers.put(m.memberId, new AssignmentSpec.Member(ids, targetAssignment(m.memberId)));
    }
    Map<String, Map<UUID, Set<Integer>>> next =
        assignor.assign(new AssignmentSpec(specMembers, counts));
    target.clear();
    next.forEach((id, a) -> target.put(id, Partitions.copy(a)));
    assignmentEpoch = groupEpoch;
    LOG.info(
        "Group {}: target assignment for epoch {} by the {} assignor",
        groupId(),
        assignmentEpoch,
        assignor.name());
  }

  /** The assignor most members ask for (ties by name), else the configured default. */
  public String preferredAssignor() {
    Map<String, Integer> votes = new TreeMap<>();
    for (ConsumerGroupMember m : members.values()) {
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

  private Reconciliation.Owners ownersOtherThan(String memberId) {
    Map<UUID, Set<Integer>> owned = new HashMap<>();
    for (ConsumerGroupMember m : members.values()) {
      if (!m.memberId.equals(memberId)) {
        m.assigned.forEach((t, ps) -> owned.computeIfAbsent(t, k -> new HashSet<>()).addAll(ps));
        m.pendingRevocation.forEach(
            (t, ps) -> owned.computeIfAbsent(t, k -> new HashSet<>()).addAll(ps));
      }
    }
    return (topic, partition) -> Partitions.contains(owned, topic, partition);
  }

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
