package io.kelp.gateway.coordinator.classic;

import java.util.ArrayList;
import java.util.List;

/**
 * A classic group as DescribeGroups shows it: state, protocol and members. As in Kafka, the
 * protocol name and the members' metadata and assignments are shown only while the group is Stable;
 * otherwise they are empty.
 */
public record ClassicGroupView(
    String state, String protocolType, String protocolName, List<MemberView> members) {

  /** A member as DescribeGroups shows it. */
  public record MemberView(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      byte[] metadata,
      byte[] assignment) {}

  /** The view of a group's members; the caller holds the group's monitor. */
  static ClassicGroupView of(
      ClassicGroup.State state, String protocolType, String protocolName, ClassicMembers members) {
    List<MemberView> list = new ArrayList<>();
    boolean stable = state == ClassicGroup.State.STABLE;
    for (ClassicMember m : members.all()) {
      byte[] metadata = protocolName == null ? null : m.metadata(protocolName);
      list.add(
          new MemberView(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              stable && metadata != null ? metadata : ClassicMember.EMPTY,
              stable ? m.assignment() : ClassicMember.EMPTY));
    }
    return new ClassicGroupView(
        state.label,
        protocolType == null ? "" : protocolType,
        stable && protocolName != null ? protocolName : "",
        list);
  }
}
