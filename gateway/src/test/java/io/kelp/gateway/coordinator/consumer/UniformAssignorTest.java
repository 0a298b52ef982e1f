package io.kelp.gateway.coordinator.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UniformAssignorTest {
  static final UUID A = new UUID(0, 1);
  static final UUID B = new UUID(0, 2);
  final UniformAssignor assignor = new UniformAssignor();

  static AssignmentSpec spec(Map<UUID, Integer> counts, Object... membersAndTopics) {
    TreeMap<String, AssignmentSpec.Member> members = new TreeMap<>();
    for (int i = 0; i < membersAndTopics.length; i += 3) {
      @SuppressWarnings("unchecked")
      Map<UUID, Set<Integer>> current = (Map<UUID, Set<Integer>>) membersAndTopics[i + 2];
      @SuppressWarnings("unchecked")
      Set<UUID> topics = (Set<UUID>) membersAndTopics[i + 1];
      members.put((String) membersAndTopics[i], new AssignmentSpec.Member(topics, current));
    }
    return new AssignmentSpec(members, counts);
  }

  static int load(Map<UUID, Set<Integer>> a) {
    return a.values().stream().mapToInt(Set::size).sum();
  }

  static void assertComplete(Map<String, Map<UUID, Set<Integer>>> out, Map<UUID, Integer> counts) {
    Set<String> seen = new HashSet<>();
    out.values()
        .forEach(a -> a.forEach((t, ps) -> ps.forEach(p -> assertTrue(seen.add(t + "-" + p)))));
    assertEquals(counts.values().stream().mapToInt(i -> i).sum(), seen.size());
  }

  @Test
  void spreadsSixPartitionsOverThreeMembersTwoEach() {
    Map<UUID, Integer> counts = Map.of(A, 6);
    var out =
        assignor.assign(
            spec(
                counts, "m1", Set.of(A), Map.of(), "m2", Set.of(A), Map.of(), "m3", Set.of(A),
                Map.of()));
    out.values().forEach(a -> assertEquals(2, load(a)));
    assertComplete(out, counts);
  }

  @Test
  void aJoiningMemberTakesOnlyWhatBalanceNeeds() {
    Map<UUID, Integer> counts = Map.of(A, 6);
    var first =
        assignor.assign(
            spec(
                counts, "m1", Set.of(A), Map.of(), "m2", Set.of(A), Map.of(), "m3", Set.of(A),
                Map.of()));
    var second =
        assignor.assign(
            spec(
                counts,
                "m1",
                Set.of(A),
                first.get("m1"),
                "m2",
                Set.of(A),
                first.get("m2"),
                "m3",
                Set.of(A),
                first.get("m3"),
                "m4",
                Set.of(A),
                Map.of()));
    assertComplete(second, counts);
    int moved = 0;
    for (String m : new String[] {"m1", "m2", "m3"}) {
      Set<Integer> before = first.get(m).get(A);
      Set<Integer> after = second.get(m).getOrDefault(A, Set.of());
      assertTrue(before.containsAll(after), m + " only loses partitions");
      moved += before.size() - after.size();
    }
    // 6 over 4 is 2, 2, 1, 1: one partition moves, to the new member.
    assertEquals(1, moved);
    assertEquals(1, load(second.get("m4")));
    second.values().forEach(a -> assertTrue(load(a) >= 1 && load(a) <= 2));
  }

  @Test
  void aLeavingMembersPartitionsGoToTheOthersAndNothingElseMoves() {
    Map<UUID, Integer> counts = Map.of(A, 6);
    var first =
        assignor.assign(
            spec(
                counts, "m1", Set.of(A), Map.of(), "m2", Set.of(A), Map.of(), "m3", Set.of(A),
                Map.of()));
    var second =
        assignor.assign(
            spec(counts, "m1", Set.of(A), first.get("m1"), "m2", Set.of(A), first.get("m2")));
    assertComplete(second, counts);
    assertTrue(second.get("m1").get(A).containsAll(first.get("m1").get(A)));
    assertTrue(second.get("m2").get(A).containsAll(first.get("m2").get(A)));
    assertEquals(3, load(second.get("m1")));
  }

  @Test
  void heterogeneousSubscriptionsOnlyGetTheirTopics() {
    Map<UUID, Integer> counts = Map.of(A, 3, B, 3);
    var out =
        assignor.assign(
            spec(
                counts,
                "m1",
                Set.of(A),
                Map.of(),
                "m2",
                Set.of(A, B),
                Map.of(),
                "m3",
                Set.of(B),
                Map.of()));
    assertComplete(out, counts);
    assertEquals(Set.of(A), out.get("m1").keySet());
    assertEquals(Set.of(B), out.get("m3").keySet());
    out.values().forEach(a -> assertEquals(2, load(a)));
  }

  @Test
  void isDeterministic() {
    Map<UUID, Integer> counts = Map.of(A, 7, B, 5);
    Map<UUID, Set<Integer>> current = new HashMap<>(Map.of(A, Set.of(0, 1, 2, 3, 4, 5, 6)));
    var one =
        assignor.assign(
            spec(
                counts,
                "x",
                Set.of(A, B),
                current,
                "y",
                Set.of(A, B),
                Map.of(),
                "z",
                Set.of(B),
                Map.of()));
    var two =
        assignor.assign(
            spec(
                counts,
                "x",
                Set.of(A, B),
                current,
                "y",
                Set.of(A, B),
                Map.of(),
                "z",
                Set.of(B),
                Map.of()));
    assertEquals(one, two);
    assertComplete(one, counts);
  }

  @Test
  void dropsPartitionsOfTopicsThatShrankOrWentAway() {
    Map<UUID, Integer> counts = Map.of(A, 2);
    var out =
        assignor.assign(spec(counts, "m1", Set.of(A), Map.of(A, Set.of(0, 1, 2), B, Set.of(0))));
    assertEquals(Map.of(A, Set.of(0, 1)), out.get("m1"));
  }
}
