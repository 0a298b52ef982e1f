package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.Test;

/**
 * Two {@code kcat -G} processes (librdkafka's balanced consumer, classic protocol) share a topic:
 * each gets some of the partitions, together they print every record, and the offsets they commit
 * on the way out are the group's.
 */
class GroupKcatCompatTest {
  private static final String TOPIC = "kcat-group";
  private static final String GROUP = "kcat-group";
  private static final int PARTITIONS = 4;
  private static final int PER_BATCH = 50;
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** kcat's report of a rebalance: "% Group g rebalanced (memberid m): assigned: t [0], t [2]". */
  private static final Pattern REBALANCE =
      Pattern.compile("% Group \\S+ rebalanced \\(memberid \\S+\\): (assigned|revoked): (.*)");

  private static final Pattern PARTITION = Pattern.compile("\\S+ \\[(\\d+)\\]");

  @Test
  void twoBalancedKcatConsumersShareATopic() throws Exception {
    try (KelpProcess kelp = KelpProcess.start("GroupKcatCompatTest")) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Groups.createTopic(admin, TOPIC, PARTITIONS);
      }
      produce(kelp.bootstrap(), 0);
      String[] args = {
        "-b",
        kelp.bootstrap(),
        "-G",
        GROUP,
        "-o",
        "beginning",
        "-f",
        "%p %o %s\\n",
        // unbuffered: lines appear as records are consumed, not at exit
        "-u",
        "-X",
        "session.timeout.ms=6000",
        "-X",
        "heartbeat.interval.ms=500",
        TOPIC
      };
      try (Kcat.Running first = Kcat.start(args);
          Kcat.Running second = Kcat.start(args)) {
        Groups.await(
            WAIT,
            "both kcat members own partitions, all " + PARTITIONS + " between them",
            () -> shared(assigned(first), assigned(second)),
            () ->
                "assigned " + assigned(first) + " and " + assigned(second) + state(first, second));
        Groups.await(
            WAIT,
            "the first batch printed",
            () -> printed(first, second).size() == PARTITIONS * PER_BATCH,
            () -> state(first, second));

        // the group is settled: each partition's new records go to the member that owns it
        Set<Integer> ofFirst = assigned(first);
        produce(kelp.bootstrap(), PER_BATCH);
        Groups.await(
            WAIT,
            "the second batch printed",
            () -> printed(first, second).size() == 2 * PARTITIONS * PER_BATCH,
            () -> state(first, second));
        assertEquals(expectedLines(2 * PER_BATCH), printed(first, second), "every record, intact");
        for (String line : printed(first)) {
          int partition = Integer.parseInt(line.split(" ")[0]);
          long offset = Long.parseLong(line.split(" ")[1]);
          if (offset >= PER_BATCH) {
            assertTrue(ofFirst.contains(partition), "first printed " + line + "; owns " + ofFirst);
          }
        }
        for (String line : printed(second)) {
          int partition = Integer.parseInt(line.split(" ")[0]);
          long offset = Long.parseLong(line.split(" ")[1]);
          if (offset >= PER_BATCH) {
            assertTrue(!ofFirst.contains(partition), "second printed " + line);
          }
        }

        Kcat.Result one = first.stop();
        Kcat.Result two = second.stop();
        assertEquals(0, one.exitCode(), one.toString());
        assertEquals(0, two.exitCode(), two.toString());
      }

      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Map<Integer, Long> expected = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
          expected.put(p, 2L * PER_BATCH);
        }
        assertEquals(expected, Groups.committed(admin, GROUP), "offsets kcat committed on exit");
        assertEquals(
            GroupState.EMPTY,
            Clients.get(admin.describeConsumerGroups(List.of(GROUP)).all())
                .get(GROUP)
                .groupState());
      }
      kelp.stop();
    }
  }

  private static void produce(String bootstrap, int from) throws Exception {
    try (KafkaProducer<String, String> producer = Clients.producer(bootstrap)) {
      for (int n = from; n < from + PER_BATCH; n++) {
        for (int p = 0; p < PARTITIONS; p++) {
          producer.send(new ProducerRecord<>(TOPIC, p, "k", p + ":" + n));
        }
      }
      producer.flush();
    }
  }

  /** What kcat prints for the first {@code perPartition} records of each partition. */
  private static Set<String> expectedLines(int perPartition) {
    Set<String> lines = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (int n = 0; n < perPartition; n++) {
        lines.add(p + " " + n + " " + p + ":" + n);
      }
    }
    return lines;
  }

  /** The partitions the member owns after the last rebalance it reported. */
  private static Set<Integer> assigned(Kcat.Running kcat) {
    Set<Integer> owned = new TreeSet<>();
    for (String line : kcat.stderr().split("\n")) {
      Matcher m = REBALANCE.matcher(line);
      if (m.find()) {
        Set<Integer> partitions = new TreeSet<>();
        Matcher p = PARTITION.matcher(m.group(2));
        while (p.find()) {
          partitions.add(Integer.valueOf(p.group(1)));
        }
        if (m.group(1).equals("assigned")) {
          owned = partitions;
        } else {
          owned.removeAll(partitions);
        }
      }
    }
    return owned;
  }

  private static boolean shared(Set<Integer> a, Set<Integer> b) {
    Set<Integer> all = new HashSet<>(a);
    all.addAll(b);
    return !a.isEmpty()
        && !b.isEmpty()
        && a.size() + b.size() == PARTITIONS
        && all.size() == PARTITIONS;
  }

  /** The distinct "partition offset value" lines the members printed. */
  private static Set<String> printed(Kcat.Running... members) {
    Set<String> lines = new HashSet<>();
    for (Kcat.Running member : members) {
      for (String line : member.stdout().split("\n")) {
        if (!line.isBlank()) {
          lines.add(line);
        }
      }
    }
    return lines;
  }

  private static String state(Kcat.Running first, Kcat.Running second) {
    return "\n--- first stderr ---\n"
        + first.stderr()
        + "\n--- second stderr ---\n"
        + second.stderr()
        + "\nprinted "
        + printed(first, second).size();
  }
}
