package io.kelp.gateway.coordinator.consumer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The {@code uniform} assignor, Kafka's default: spreads partitions so that member loads differ by
 * at most one where subscriptions allow it, and keeps every partition where it is unless moving it
 * is needed for that balance, so a rebalance revokes as little as possible.
 *
 * <p>Three steps: keep each member's previous partitions that it still subscribes to; give every
 * unowned partition to the least loaded subscriber; then move partitions, one at a time, from the
 * most loaded member to a less loaded subscriber while their loads differ by two or more. Each move
 * lowers the sum of squared loads, so the last step ends.
 */
public final class UniformAssignor implements ServerAssignor {
  public static final String NAME = "uniform";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, Map<UUID, Set<Integer>>> assign(AssignmentSpec spec) {
    Map<String, TreeSet<Tp>> owned = new TreeMap<>();
    Set<Tp> taken = new HashSet<>();
    spec.members()
        .forEach(
            (id, m) -> {
              TreeSet<Tp> mine = new TreeSet<>();
              owned.put(id, mine);
              m.currentAssignment()
                  .forEach(
                      (topic, partitions) -> {
                        Integer count = spec.partitionCounts().get(topic);
                        if (count == null || !m.subscribedTopicIds().contains(topic)) {
                          return;
                        }
                        for (int p : new TreeSet<>(partitions)) {
                          Tp tp = new Tp(topic, p);
                          if (p < count && taken.add(tp)) {
                            mine.add(tp);
                          }
                        }
                      });
            });
    for (Tp tp : allPartitions(spec)) {
      if (!taken.contains(tp)) {
        String to = leastLoaded(spec, owned, tp.topic());
        if (to != null) {
          owned.get(to).add(tp);
        }
      }
    }
    balance(spec, owned);
    Map<String, Map<UUID, Set<Integer>>> out = new TreeMap<>();
    owned.forEach((id, tps) -> out.put(id, Tp.group(tps)));
    return out;
  }

  private static List<Tp> allPartitions(AssignmentSpec spec) {
    Set<UUID> subscribed = new TreeSet<>();
    spec.members().values().forEach(m -> subscribed.addAll(m.subscribedTopicIds()));
    List<Tp> all = new ArrayList<>();
    for (UUID topic : subscribed) {
      Integer count = spec.partitionCounts().get(topic);
      for (int p = 0; count != null && p < count; p++) {
        all.add(new Tp(topic, p));
      }
    }
    return all;
  }

  private static String leastLoaded(AssignmentSpec spec, Map<String, TreeSet<Tp>> owned, UUID t) {
    String best = null;
    for (Map.Entry<String, AssignmentSpec.Member> e : spec.members().entrySet()) {
      if (e.getValue().subscribedTopicIds().contains(t)
          && (best == null || owned.get(e.getKey()).size() < owned.get(best).size())) {
        best = e.getKey();
      }
    }
    return best;
  }

  private static void balance(AssignmentSpec spec, Map<String, TreeSet<Tp>> owned) {
    Comparator<String> byLoad =
        Comparator.<String>comparingInt(id -> owned.get(id).size())
            .thenComparing(Comparator.naturalOrder());
    boolean moved = true;
    while (moved) {
      moved = false;
      List<String> ascending = new ArrayList<>(owned.keySet());
      ascending.sort(byLoad);
      outer:
      for (int d = ascending.size() - 1; d > 0; d--) {
        TreeSet<Tp> donor = owned.get(ascending.get(d));
        for (int r = 0; r < d; r++) {
          String receiverId = ascending.get(r);
          TreeSet<Tp> receiver = owned.get(receiverId);
          if (donor.size() - receiver.size() < 2) {
            break;
          }
          Set<UUID> wants = spec.members().get(receiverId).subscribedTopicIds();
          for (Tp tp : donor.descendingSet()) {
            if (wants.contains(tp.topic())) {
              donor.remove(tp);
              receiver.add(tp);
              moved = true;
              break outer;
            }
          }
        }
      }
    }
  }

  /** A partition of a topic, ordered by topic id then partition. */
  record Tp(UUID topic, int partition) implements Comparable<Tp> {
    @Override
    public int compareTo(Tp o) {
      int c = topic.compareTo(o.topic);
      return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    static Map<UUID, Set<Integer>> group(Set<Tp> tps) {
      Map<UUID, Set<Integer>> out = new HashMap<>();
      for (Tp tp : tps) {
        out.computeIfAbsent(tp.topic(), k -> new TreeSet<>()).add(tp.partition());
      }
      return out;
    }
  }
}
