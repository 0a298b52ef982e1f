package io.kelp.gateway.coordinator.classic;

import io.kelp.gateway.coordinator.Group;
import io.kelp.gateway.coordinator.GroupCoordinator;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Finding and creating classic groups in the coordinator. */
public final class ClassicGroups {
  private ClassicGroups() {}

  /** Lets the coordinator read classic groups back from the store. */
  public static void register(GroupCoordinator coordinator) {
    coordinator.registerLoader(
        ClassicGroup.TYPE,
        (groupId, metadata, c) -> {
          try {
            return ClassicGroup.restore(groupId, ClassicGroupState.decode(metadata), c);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /**
   * The classic group with this id, created when missing and {@code create} is set. An empty group
   * of another type is replaced, keeping its offsets, as Kafka converts empty groups. Returns null
   * when there is no such group (and none was created), or when a non-empty group of another type
   * holds the id.
   */
  public static ClassicGroup getOrCreate(
      GroupCoordinator coordinator, String groupId, boolean create) {
    while (true) {
      Group g = coordinator.group(groupId);
      if (g instanceof ClassicGroup classic) {
        return classic;
      }
      if (g != null) {
        synchronized (g) {
          if (!g.isEmpty() || !create) {
            return null;
          }
          ClassicGroup fresh = new ClassicGroup(groupId, coordinator);
          synchronized (fresh) {
            fresh.offsets().putAll(g.offsets());
          }
          if (coordinator.replace(g, fresh)) {
            g.markDead();
            return fresh;
          }
        }
        continue;
      }
      if (!create) {
        return null;
      }
      Group added = coordinator.putIfAbsent(new ClassicGroup(groupId, coordinator));
      if (added instanceof ClassicGroup classic) {
        return classic;
      }
    }
  }
}
