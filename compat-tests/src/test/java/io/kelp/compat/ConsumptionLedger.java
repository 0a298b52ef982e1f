package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Everything the members of one group reported, and the check that the group consumed each
 * partition at least once with no more duplicates than at-least-once allows.
 *
 * <p>A <em>run</em> is one member's consumption of one partition from the moment it is assigned
 * until it is revoked or lost (or the member dies). Per partition, the runs ordered by their first
 * offset must form a chain: the first starts at offset 0, each later one starts at the offset its
 * predecessor last committed (or, if that commit's answer was never seen, one it was committing),
 * and each run reads dense offsets. So a record is read twice only when a member read it after its
 * last commit and then lost the partition, and no record is skipped.
 */
final class ConsumptionLedger implements ConsumerMember.Events {
  private static final class Run {
    final String member;
    final int partition;
    final List<Long> offsets = new ArrayList<>();
    final List<String> values = new ArrayList<>();

    /** Offsets of the commits that succeeded, in order. */
    final List<Long> committed = new ArrayList<>();

    /** Offsets being committed since the last success; any of them may have been stored. */
    final Set<Long> committing = new HashSet<>();

    Run(String member, int partition) {
      this.member = member;
      this.partition = partition;
    }

    long start() {
      return offsets.get(0);
    }

    @Override
    public String toString() {
      return member
          + "["
          + (offsets.isEmpty() ? "-" : start() + ".." + offsets.get(offsets.size() - 1))
          + " committed "
          + (committed.isEmpty() ? "-" : committed.get(committed.size() - 1))
          + (committing.isEmpty() ? "" : " committing " + committing)
          + "]";
    }
  }

  private final Map<String, Map<Integer, Run>> current = new HashMap<>();
  private final List<Run> runs = new ArrayList<>();
  private final Map<String, Integer> assignmentChanges = new HashMap<>();
  private final Map<Integer, Long> maxConsumed = new HashMap<>();
  private final Map<Integer, Long> maxCommitted = new HashMap<>();
  private final List<String> failures = new ArrayList<>();
  private final List<String> errors = new ArrayList<>();

  @Override
  public synchronized void assigned(String member, Collection<Integer> partitions) {
    Map<Integer, Run> owned = current.computeIfAbsent(member, m -> new TreeMap<>());
    for (Integer p : partitions) {
      if (owned.containsKey(p)) {
        errors.add(member + " was assigned partition " + p + " which it already owned");
        continue;
      }
      Run run = new Run(member, p);
      owned.put(p, run);
      runs.add(run);
    }
    if (!partitions.isEmpty()) {
      assignmentChanges.merge(member, 1, Integer::sum);
    }
  }

  @Override
  public synchronized void revoked(String member, Collection<Integer> partitions) {
    release(member, partitions);
  }

  @Override
  public synchronized void lost(String member, Collection<Integer> partitions) {
    release(member, partitions);
  }

  private void release(String member, Collection<Integer> partitions) {
    Map<Integer, Run> owned = current.computeIfAbsent(member, m -> new TreeMap<>());
    partitions.forEach(owned::remove);
    if (!partitions.isEmpty()) {
      assignmentChanges.merge(member, 1, Integer::sum);
    }
  }

  @Override
  public synchronized void consumed(String member, int partition, long offset, String value) {
    Run run = current.getOrDefault(member, Map.of()).get(partition);
    if (run == null) {
      errors.add(member + " consumed offset " + offset + " of partition " + partition + " unowned");
      return;
    }
    run.offsets.add(offset);
    run.values.add(value);
    maxConsumed.merge(partition, offset, Math::max);
  }

  @Override
  public synchronized void committing(String member, Map<Integer, Long> offsets) {
    offsets.forEach((p, o) -> run(member, p, "committing").committing.add(o));
  }

  @Override
  public synchronized void committed(String member, Map<Integer, Long> offsets) {
    offsets.forEach(
        (p, o) -> {
          Run run = run(member, p, "committed");
          run.committed.add(o);
          run.committing.clear();
          maxCommitted.merge(p, o, Math::max);
        });
  }

  @Override
  public synchronized void failed(String member, String what) {
    failures.add(member + ": " + what);
  }

  private Run run(String member, int partition, String what) {
    Run run = current.getOrDefault(member, Map.of()).get(partition);
    if (run == null) {
      // a commit outside ownership: recorded so that the check fails with the story
      errors.add(member + " " + what + " partition " + partition + " it did not own");
      run = new Run(member, partition);
    }
    return run;
  }

  /** The partitions each of {@code members} owns now. */
  synchronized Map<String, Set<Integer>> ownership(Collection<String> members) {
    Map<String, Set<Integer>> out = new TreeMap<>();
    for (String m : members) {
      out.put(m, new TreeSet<>(current.getOrDefault(m, Map.of()).keySet()));
    }
    return out;
  }

  /**
   * Whether {@code members} between them own each of {@code partitions} partitions exactly once,
   * each owning at least one.
   */
  synchronized boolean sharedBy(Collection<String> members, int partitions) {
    Set<Integer> seen = new HashSet<>();
    for (Set<Integer> owned : ownership(members).values()) {
      if (owned.isEmpty()) {
        return false;
      }
      for (Integer p : owned) {
        if (!seen.add(p)) {
          return false;
        }
      }
    }
    return seen.size() == partitions;
  }

  /** How many times the member was assigned or gave up partitions. */
  synchronized int assignmentChanges(String member) {
    return assignmentChanges.getOrDefault(member, 0);
  }

  /** Whether every partition in {@code offsets} was consumed at least up to that offset. */
  synchronized boolean consumedTo(Map<Integer, Long> offsets) {
    for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
      if (maxConsumed.getOrDefault(e.getKey(), -1L) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Whether every partition in {@code ends} has a successful commit of its end offset. */
  synchronized boolean committedTo(Map<Integer, Long> ends) {
    for (Map.Entry<Integer, Long> e : ends.entrySet()) {
      if (maxCommitted.getOrDefault(e.getKey(), 0L) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public synchronized String toString() {
    Map<Integer, List<Run>> byPartition = new TreeMap<>();
    runs.forEach(r -> byPartition.computeIfAbsent(r.partition, p -> new ArrayList<>()).add(r));
    return "runs "
        + byPartition
        + "; max consumed "
        + maxConsumed
        + "; max committed "
        + maxCommitted
        + (errors.isEmpty() ? "" : "; errors " + errors)
        + (failures.isEmpty() ? "" : "; reported failures " + failures);
  }

  /**
   * Checks the consumption of each partition against what was produced.
   *
   * @param produced per partition, the value acknowledged at each offset; offsets are dense from 0
   * @return per partition, how many records were read more than once
   */
  synchronized Map<Integer, Integer> check(Map<Integer, List<String>> produced) {
    assertTrue(errors.isEmpty(), "members misbehaved: " + errors + "; " + this);
    Map<Integer, Integer> duplicates = new TreeMap<>();
    for (Map.Entry<Integer, List<String>> e : produced.entrySet()) {
      duplicates.put(e.getKey(), checkPartition(e.getKey(), e.getValue()));
    }
    return duplicates;
  }

  private int checkPartition(int partition, List<String> produced) {
    List<Run> chain =
        runs.stream()
            .filter(r -> r.partition == partition && !r.offsets.isEmpty())
            .sorted(
                Comparator.comparingLong(Run::start)
                    // a run that committed nothing leaves the committed offset where it was, so it
                    // goes before one that starts at the same offset and moves it
                    .thenComparing(r -> !r.committed.isEmpty()))
            .toList();
    String story = "partition " + partition + ": runs " + chain;
    Set<Long> allowed = new HashSet<>(Set.of(0L));
    Set<Long> read = new HashSet<>();
    int total = 0;
    for (Run run : chain) {
      if (!allowed.contains(run.start())) {
        fail(
            "a member started at offset "
                + run.start()
                + " instead of the last commit (one of "
                + allowed
                + "); "
                + story);
      }
      for (int i = 0; i < run.offsets.size(); i++) {
        long offset = run.offsets.get(i);
        assertEquals(run.start() + i, offset, run + " read dense offsets; " + story);
        assertTrue(offset < produced.size(), run + " read offset " + offset + " never produced");
        assertEquals(produced.get((int) offset), run.values.get(i), "value at offset " + offset);
        read.add(offset);
        total++;
      }
      if (!run.committed.isEmpty()) {
        allowed = new HashSet<>();
        allowed.add(run.committed.get(run.committed.size() - 1));
      }
      allowed.addAll(run.committing);
    }
    for (long offset = 0; offset < produced.size(); offset++) {
      if (!read.contains(offset)) {
        fail("offset " + offset + " was never consumed; " + story);
      }
    }
    return total - read.size();
  }
}
