package io.kelp.gateway.coordinator.consumer;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Helpers for sets of partitions keyed by topic id, the shape in which the consumer group protocol
 * speaks of assignments. Copies are sorted so that stored state and responses come out in one
 * order.
 */
final class Partitions {
  private Partitions() {}

  static final Map<UUID, Set<Integer>> NONE = Collections.emptyMap();

  /** A sorted copy without empty topics. */
  static Map<UUID, Set<Integer>> copy(Map<UUID, Set<Integer>> in) {
    Map<UUID, Set<Integer>> out = new TreeMap<>();
    if (in != null) {
      in.forEach(
          (t, ps) -> {
            if (!ps.isEmpty()) {
              out.put(t, new TreeSet<>(ps));
            }
          });
    }
    return out;
  }

  static boolean contains(Map<UUID, Set<Integer>> in, UUID topic, int partition) {
    Set<Integer> ps = in.get(topic);
    return ps != null && ps.contains(partition);
  }

  static int count(Map<UUID, Set<Integer>> in) {
    int n = 0;
    for (Set<Integer> ps : in.values()) {
      n += ps.size();
    }
    return n;
  }
}
