package io.kelp.gateway.coordinator.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RangeAssignorTest {
  static final UUID A = UniformAssignorTest.A;
  static final UUID B = UniformAssignorTest.B;
  final RangeAssignor assignor = new RangeAssignor();

  @Test
  void givesConsecutiveRangesFirstMembersOneMore() {
    var out =
        assignor.assign(
            UniformAssignorTest.spec(
                Map.of(A, 7),
                "m1",
                Set.of(A),
                Map.of(),
                "m2",
                Set.of(A),
                Map.of(),
                "m3",
                Set.of(A),
                Map.of()));
    assertEquals(Map.of(A, Set.of(0, 1, 2)), out.get("m1"));
    assertEquals(Map.of(A, Set.of(3, 4)), out.get("m2"));
    assertEquals(Map.of(A, Set.of(5, 6)), out.get("m3"));
  }

  @Test
  void coPartitionedTopicsGetTheSamePartitionNumbers() {
    var out =
        assignor.assign(
            UniformAssignorTest.spec(
                Map.of(A, 4, B, 4), "m1", Set.of(A, B), Map.of(), "m2", Set.of(A, B), Map.of()));
    assertEquals(Map.of(A, Set.of(0, 1), B, Set.of(0, 1)), out.get("m1"));
    assertEquals(Map.of(A, Set.of(2, 3), B, Set.of(2, 3)), out.get("m2"));
  }

  @Test
  void moreMembersThanPartitionsLeavesSomeIdle() {
    var out =
        assignor.assign(
            UniformAssignorTest.spec(
                Map.of(A, 1), "m1", Set.of(A), Map.of(), "m2", Set.of(A), Map.of()));
    assertEquals(Map.of(A, Set.of(0)), out.get("m1"));
    assertEquals(Map.of(), out.get("m2"));
  }
}
