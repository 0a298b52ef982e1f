package io.kelp.gateway.coordinator.consumer;

import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A server-side partition assignor of the consumer group protocol (KIP-848): given every member's
 * subscription and the partitions it was last assigned, it computes the group's next target
 * assignment. Implementations are pure functions of the spec: the same spec always gives the same
 * assignment.
 */
public interface ServerAssignor {

  /** The name members ask for in ConsumerGroupHeartbeat's ServerAssignor field. */
  String name();

  /**
   * @return for every member of {@code spec}, the partitions by topic id it should own (members
   *     that get nothing map to an empty map)
   */
  Map<String, Map<UUID, Set<Integer>>> assign(AssignmentSpec spec);
}
