package io.kelp.gateway.coordinator;

import com.fasterxml.jackson.databind.JsonNode;

/** Rebuilds a group of one type from the membership state it wrote to the store. */
@FunctionalInterface
public interface GroupLoader {
  /**
   * @param metadata the JSON object the group wrote; its {@code type} field named this loader
   * @return the group, its members given a fresh session timeout as Kafka does after a coordinator
   *     moves, or null to start the group empty
   */
  Group restore(String groupId, JsonNode metadata, GroupCoordinator coordinator);
}
