package io.kelp.gateway.coordinator.consumer;

/** Where a member is in reconciling its assignment with the group's target assignment. */
public enum MemberState {
  /** It owns its target assignment, or is on its way to it with nothing to wait for. */
  STABLE,
  /** It must give up some partitions first; it keeps its epoch until it says it did. */
  UNREVOKED_PARTITIONS,
  /** It waits for partitions that other members still own. */
  UNRELEASED_PARTITIONS
}
