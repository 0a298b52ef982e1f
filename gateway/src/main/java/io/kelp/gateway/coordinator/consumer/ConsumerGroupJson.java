package io.kelp.gateway.coordinator.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kelp.gateway.coordinator.GroupCoordinator;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The stored state of a consumer group: what it needs after a restart or a move of its coordinator
 * so that members keep their ids, epochs and partitions. Session deadlines are not stored: every
 * member gets a fresh session timeout when the group is read back, as Kafka does.
 *
 * <pre>
 * {"type": "consumer", "version": 1,
 *  "groupEpoch": 7, "assignmentEpoch": 7,
 *  "topics": [{"name": "orders", "id": "uuid", "partitions": 6}],     subscribed topics
 *  "members": [{
 *    "memberId": "...", "instanceId": null, "rackId": null,
 *    "clientId": "...", "clientHost": "/10.0.0.1",
 *    "subscribedTopicNames": ["orders"], "subscribedTopicRegex": null,
 *    "serverAssignor": null, "rebalanceTimeoutMs": 300000,
 *    "memberEpoch": 7, "previousMemberEpoch": 6, "state": "STABLE",
 *    "assigned": {"uuid": [0, 1]}, "pendingRevocation": {},
 *    "target": {"uuid": [0, 1]}}]}
 * </pre>
 */
final class ConsumerGroupJson {
  private ConsumerGroupJson() {}

  static byte[] write(ConsumerGroup g) {
    ObjectNode root = GroupCoordinator.json().createObjectNode();
    root.put("type", ConsumerGroup.TYPE);
    root.put("version", 1);
    root.put("groupEpoch", g.groupEpoch);
    root.put("assignmentEpoch", g.assignmentEpoch);
    ArrayNode topics = root.putArray("topics");
    g.subscribed.forEach(
        (name, t) ->
            topics
                .addObject()
                .put("name", name)
                .put("id", t.id().toString())
                .put("partitions", t.partitions()));
    ArrayNode members = root.putArray("members");
    for (ConsumerGroupMember m : g.members.values()) {
      ObjectNode o = members.addObject();
      o.put("memberId", m.memberId);
      o.put("instanceId", m.instanceId);
      o.put("rackId", m.rackId);
      o.put("clientId", m.clientId);
      o.put("clientHost", m.clientHost);
      ArrayNode names = o.putArray("subscribedTopicNames");
      m.subscribedTopicNames.forEach(names::add);
      o.put("subscribedTopicRegex", m.subscribedTopicRegex);
      o.put("serverAssignor", m.serverAssignor);
      o.put("rebalanceTimeoutMs", m.rebalanceTimeoutMs);
      o.put("memberEpoch", m.memberEpoch);
      o.put("previousMemberEpoch", m.previousMemberEpoch);
      o.put("state", m.state.name());
      o.set("assigned", partitions(m.assigned));
      o.set("pendingRevocation", partitions(m.pendingRevocation));
      o.set("target", partitions(g.targetAssignment(m.memberId)));
    }
    try {
      return GroupCoordinator.json().writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ObjectNode partitions(Map<UUID, Set<Integer>> in) {
    ObjectNode o = GroupCoordinator.json().createObjectNode();
    new TreeMap<>(in)
        .forEach(
            (t, ps) -> {
              ArrayNode a = o.putArray(t.toString());
              new TreeSet<>(ps).forEach(a::add);
            });
    return o;
  }

  /** Rebuilds a group; its members get fresh session timeouts from now. */
  static ConsumerGroup read(String groupId, JsonNode root, GroupCoordinator coordinator) {
    ConsumerGroup g = new ConsumerGroup(groupId, coordinator);
    synchronized (g) {
      g.groupEpoch = root.path("groupEpoch").asInt();
      g.assignmentEpoch = root.path("assignmentEpoch").asInt();
      Map<String, ConsumerGroup.TopicMeta> topics = new TreeMap<>();
      for (JsonNode t : root.path("topics")) {
        topics.put(
            t.path("name").asText(),
            new ConsumerGroup.TopicMeta(
                UUID.fromString(t.path("id").asText()), t.path("partitions").asInt()));
      }
      g.subscribed = topics;
      long now = coordinator.nowMs();
      for (JsonNode o : root.path("members")) {
        ConsumerGroupMember m = member(o);
        g.members.put(m.memberId, m);
        if (m.instanceId != null) {
          g.staticMembers.put(m.instanceId, m.memberId);
        }
        g.target.put(m.memberId, partitions(o.path("target")));
        m.sessionDeadlineMs = now + coordinator.config().consumerSessionTimeoutMs();
        if (m.state == MemberState.UNREVOKED_PARTITIONS) {
          m.revocationDeadlineMs = now + Math.max(0, m.rebalanceTimeoutMs);
        }
      }
      g.computeSubscribed();
      g.markWritten(write(g));
      for (ConsumerGroupMember m : g.members.values()) {
        g.scheduleTimeout(m);
      }
    }
    return g;
  }

  private static ConsumerGroupMember member(JsonNode o) {
    ConsumerGroupMember m = new ConsumerGroupMember(o.path("memberId").asText());
    m.instanceId = text(o, "instanceId");
    m.rackId = text(o, "rackId");
    m.clientId = o.path("clientId").asText("");
    m.clientHost = o.path("clientHost").asText("");
    List<String> names = new ArrayList<>();
    o.path("subscribedTopicNames").forEach(n -> names.add(n.asText()));
    m.subscribedTopicNames = List.copyOf(names);
    m.subscribedTopicRegex = text(o, "subscribedTopicRegex");
    m.serverAssignor = text(o, "serverAssignor");
    m.rebalanceTimeoutMs = o.path("rebalanceTimeoutMs").asInt(-1);
    m.memberEpoch = o.path("memberEpoch").asInt();
    m.previousMemberEpoch = o.path("previousMemberEpoch").asInt();
    m.state = MemberState.valueOf(o.path("state").asText(MemberState.STABLE.name()));
    m.assigned = partitions(o.path("assigned"));
    m.pendingRevocation = partitions(o.path("pendingRevocation"));
    return m;
  }

  private static String text(JsonNode o, String field) {
    JsonNode n = o.get(field);
    return n == null || n.isNull() ? null : n.asText();
  }

  private static Map<UUID, Set<Integer>> partitions(JsonNode o) {
    Map<UUID, Set<Integer>> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : o.properties()) {
      Set<Integer> ps = new TreeSet<>();
      e.getValue().forEach(p -> ps.add(p.asInt()));
      if (!ps.isEmpty()) {
        out.put(UUID.fromString(e.getKey()), ps);
      }
    }
    return out;
  }
}
