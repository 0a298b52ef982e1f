package io.kelp.gateway.coordinator.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The {@code range} assignor: per topic, the subscribers sorted by member id get consecutive ranges
 * of partitions, the first ones one more when the count does not divide evenly, as the client's
 * RangeAssignor does. Members subscribed to the same co-partitioned topics thus get the same
 * partition numbers of each (joins by key work per member).
 */
public final class RangeAssignor implements ServerAssignor {
  public static final String NAME = "range";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, Map<UUID, Set<Integer>>> assign(AssignmentSpec spec) {
    Map<String, Map<UUID, Set<Integer>>> out = new TreeMap<>();
    spec.members().keySet().forEach(id -> out.put(id, new HashMap<>()));
    for (Map.Entry<UUID, Integer> topic : new TreeMap<>(spec.partitionCounts()).entrySet()) {
      List<String> subscribers = new ArrayList<>();
      spec.members()
          .forEach(
              (id, m) -> {
                if (m.subscribedTopicIds().contains(topic.getKey())) {
                  subscribers.add(id);
                }
              });
      if (subscribers.isEmpty()) {
        continue;
      }
      int count = topic.getValue();
      int each = count / subscribers.size();
      int extra = count % subscribers.size();
      for (int i = 0; i < subscribers.size(); i++) {
        int start = i * each + Math.min(i, extra);
        int length = each + (i < extra ? 1 : 0);
        if (length == 0) {
          continue;
        }
        Set<Integer> partitions = new TreeSet<>();
        for (int p = start; p < start + length; p++) {
          partitions.add(p);
        }
        out.get(subscribers.get(i)).put(topic.getKey(), partitions);
      }
    }
    return out;
  }
}
