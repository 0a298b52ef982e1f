package io.kelp.gateway.coordinator.classic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicMember.Protocol;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A classic group's membership as the store keeps it, one JSON object:
 *
 * <pre>
 * {"type":"classic", "protocolType":"consumer", "protocolName":"range", "generation":7,
 *  "leader":"c-1-...", "stateTimestamp":1764460800000,
 *  "members":[{"memberId":"c-1-...", "groupInstanceId":null, "clientId":"c-1",
 *              "clientHost":"/127.0.0.1", "rebalanceTimeoutMs":300000, "sessionTimeoutMs":45000,
 *              "subscription":"&lt;base64&gt;", "assignment":"&lt;base64&gt;"}]}
 * </pre>
 *
 * Only the metadata of the chosen protocol is kept per member, as Kafka does. Besides the JSON,
 * this converts between the stored form and a live group's members.
 */
record ClassicGroupState(
    String protocolType,
    String protocolName,
    int generation,
    String leaderId,
    long stateTimestampMs,
    List<Member> members) {

  record Member(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      int rebalanceTimeoutMs,
      int sessionTimeoutMs,
      byte[] subscription,
      byte[] assignment) {}

  /** The stored form of a group's membership; the caller holds the group's monitor. */
  static ClassicGroupState of(
      String protocolType,
      String protocolName,
      int generation,
      long stateTimestampMs,
      ClassicMembers members) {
    List<Member> list = new ArrayList<>();
    for (ClassicMember m : members.all()) {
      byte[] subscription = protocolName == null ? null : m.metadata(protocolName);
      list.add(
          new Member(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              m.rebalanceTimeoutMs(),
              m.sessionTimeoutMs(),
              subscription == null ? ClassicMember.EMPTY : subscription,
              m.assignment()));
    }
    return new ClassicGroupState(
        protocolType, protocolName, generation, members.leaderId(), stateTimestampMs, list);
  }

  /**
   * Adds the stored members to {@code into}, each offering only the stored protocol and getting a
   * fresh session timeout from {@code nowMs}, and restores the leader.
   */
  void restoreMembers(ClassicMembers into, long nowMs) {
    for (Member m : members) {
      List<Protocol> protocols =
          protocolName == null ? List.of() : List.of(new Protocol(protocolName, m.subscription()));
      ClassicMember member =
          new ClassicMember(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              m.rebalanceTimeoutMs(),
              m.sessionTimeoutMs(),
              protocolType,
              protocols);
      member.assignment(m.assignment());
      member.heartbeatDeadlineMs(nowMs + m.sessionTimeoutMs());
      into.add(member);
    }
    into.restoreLeader(leaderId);
  }

  static byte[] encode(ClassicGroupState s) throws IOException {
    ObjectNode root = GroupCoordinator.json().createObjectNode();
    root.put("type", ClassicGroup.TYPE);
    root.put("protocolType", s.protocolType);
    root.put("protocolName", s.protocolName);
    root.put("generation", s.generation);
    root.put("leader", s.leaderId);
    root.put("stateTimestamp", s.stateTimestampMs);
    ArrayNode members = root.putArray("members");
    for (Member m : s.members) {
      ObjectNode n = members.addObject();
      n.put("memberId", m.memberId);
      n.put("groupInstanceId", m.groupInstanceId);
      n.put("clientId", m.clientId);
      n.put("clientHost", m.clientHost);
      n.put("rebalanceTimeoutMs", m.rebalanceTimeoutMs);
      n.put("sessionTimeoutMs", m.sessionTimeoutMs);
      n.put("subscription", m.subscription);
      n.put("assignment", m.assignment);
    }
    return GroupCoordinator.json().writeValueAsBytes(root);
  }

  static ClassicGroupState decode(JsonNode root) throws IOException {
    List<Member> members = new ArrayList<>();
    for (JsonNode n : root.path("members")) {
      members.add(
          new Member(
              text(n, "memberId"),
              text(n, "groupInstanceId"),
              textOrEmpty(n, "clientId"),
              textOrEmpty(n, "clientHost"),
              n.path("rebalanceTimeoutMs").asInt(300_000),
              n.path("sessionTimeoutMs").asInt(45_000),
              bytes(n, "subscription"),
              bytes(n, "assignment")));
    }
    return new ClassicGroupState(
        text(root, "protocolType"),
        text(root, "protocolName"),
        root.path("generation").asInt(0),
        text(root, "leader"),
        root.path("stateTimestamp").asLong(-1),
        members);
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static String textOrEmpty(JsonNode n, String field) {
    String s = text(n, field);
    return s == null ? "" : s;
  }

  private static byte[] bytes(JsonNode n, String field) throws IOException {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? new byte[0] : v.binaryValue();
  }
}
