package io.kelp.gateway.coordinator.consumer;

import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.UUID;

/**
 * What a {@link ServerAssignor} assigns from.
 *
 * @param members every member by id, sorted so that assignors iterate them in one order
 * @param partitionCounts the partition count of every topic some member subscribes to and that
 *     exists
 */
public record AssignmentSpec(
    SortedMap<String, Member> members, Map<UUID, Integer> partitionCounts) {

  /**
   * One member as an assignor sees it.
   *
   * @param subscribedTopicIds the existing topics it subscribes to
   * @param currentAssignment its partitions in the previous target assignment, kept where possible
   */
  public record Member(Set<UUID> subscribedTopicIds, Map<UUID, Set<Integer>> currentAssignment) {}
}
