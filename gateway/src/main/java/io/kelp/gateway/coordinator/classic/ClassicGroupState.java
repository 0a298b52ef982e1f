package io.kelp.gateway.coordinator.classic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kelp.gateway.coordinator.GroupCoordinator;
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
 * Only the metadata of the chosen protocol is kept per member, as Kafka does.
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
