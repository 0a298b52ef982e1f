package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Kafka's own {@code kafka-consumer-groups} tool ({@code ConsumerGroupCommand}), run as its own JVM
 * the way the shell script runs it: list, describe (offsets, members, state), reset offsets to
 * earliest, latest and a point in time, and delete, asserted on what it prints and on the offsets
 * that follow.
 */
class GroupToolCompatTest {
  private static final String TOOL = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
  private static final String TOPIC = "tool-topic";
  private static final String IDLE = "tool-idle";
  private static final String ACTIVE = "tool-active";
  private static final int PARTITIONS = 3;
  private static final int RECORDS = 10;

  @Test
  void kafkaConsumerGroupsTool() throws Exception {
    try (KelpProcess kelp = KelpProcess.start("GroupToolCompatTest")) {
      String bootstrap = kelp.bootstrap();
      // record n of each partition is stamped base + n seconds
      Instant base = Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
      try (Admin admin = Clients.admin(bootstrap)) {
        Groups.createTopic(admin, TOPIC, PARTITIONS);
      }
      try (KafkaProducer<String, String> producer = Clients.producer(bootstrap)) {
        for (int n = 0; n < RECORDS; n++) {
          for (int p = 0; p < PARTITIONS; p++) {
            long timestamp = base.plusSeconds(n).toEpochMilli();
            producer.send(new ProducerRecord<>(TOPIC, p, timestamp, "k", p + ":" + n));
          }
        }
        producer.flush();
      }
      // an idle group: read everything, committed, left
      Map<String, Object> idleSettings = Groups.classic(IDLE);
      try (KafkaConsumer<String, String> consumer = Groups.member(bootstrap, idleSettings)) {
        consumer.subscribe(List.of(TOPIC));
        int[] read = {0};
        Groups.pollUntil(
            consumer,
            Duration.ofSeconds(60),
            "every record",
            () -> read[0] == PARTITIONS * RECORDS,
            records -> read[0] += records.count());
        consumer.commitSync();
      }
      // an active group: a member that keeps polling
      Map<String, Object> activeSettings = Groups.classic(ACTIVE);
      activeSettings.put(ConsumerConfig.CLIENT_ID_CONFIG, "tool-active-client");
      ConsumptionLedger ledger = new ConsumptionLedger();
      try (ConsumerMember member =
          ConsumerMember.start("active", bootstrap, TOPIC, activeSettings, ledger)) {
        Groups.await(
            Duration.ofSeconds(60),
            "the active member owns every partition",
            () -> ledger.sharedBy(List.of("active"), PARTITIONS),
            ledger::toString);

        String list = tool(bootstrap, "--list");
        assertTrue(lines(list).containsAll(List.of(IDLE, ACTIVE)), list);

        String describe = tool(bootstrap, "--describe", "--group", IDLE);
        assertTrue(
            describe.contains("Consumer group '" + IDLE + "' has no active members."), describe);
        List<Map<String, String>> rows = table(describe, "GROUP");
        assertEquals(PARTITIONS, rows.size(), describe);
        for (Map<String, String> row : rows) {
          assertEquals(TOPIC, row.get("TOPIC"));
          assertEquals("10", row.get("CURRENT-OFFSET"), describe);
          assertEquals("10", row.get("LOG-END-OFFSET"), describe);
          assertEquals("0", row.get("LAG"), describe);
        }

        String members = tool(bootstrap, "--describe", "--group", ACTIVE, "--members");
        List<Map<String, String>> memberRows = table(members, "GROUP");
        assertEquals(1, memberRows.size(), members);
        assertEquals("tool-active-client", memberRows.get(0).get("CLIENT-ID"), members);
        assertEquals("3", memberRows.get(0).get("#PARTITIONS"), members);
        assertTrue(memberRows.get(0).get("HOST").contains("127.0.0.1"), members);

        String state = tool(bootstrap, "--describe", "--group", ACTIVE, "--state");
        Map<String, String> stateRow = table(state, "GROUP").get(0);
        assertEquals("Stable", stateRow.get("STATE"), state);
        assertEquals("1", stateRow.get("#MEMBERS"), state);
        assertEquals("range", stateRow.get("ASSIGNMENT-STRATEGY"), state);
        assertTrue(stateRow.get("COORDINATOR").contains(bootstrap), state);

        // offsets of a group with members are not the tool's to reset
        String refused = reset(bootstrap, ACTIVE, "--to-earliest");
        assertTrue(
            refused.contains(
                "Assignments can only be reset if the group '"
                    + ACTIVE
                    + "' is inactive, but the current state is Stable."),
            refused);

        assertNewOffsets(reset(bootstrap, IDLE, "--to-earliest"), 0);
        assertCommitted(bootstrap, IDLE, 0);
        assertNewOffsets(reset(bootstrap, IDLE, "--to-latest"), RECORDS);
        assertCommitted(bootstrap, IDLE, RECORDS);
        // the first record stamped at or after base + 4.5 s is record 5
        String datetime = base.plusMillis(4_500).toString();
        assertNewOffsets(reset(bootstrap, IDLE, "--to-datetime", datetime), 5);
        assertCommitted(bootstrap, IDLE, 5);
        // without --execute the tool only shows the plan
        assertNewOffsets(
            tool(bootstrap, "--reset-offsets", "--group", IDLE, "--topic", TOPIC, "--to-earliest"),
            0);
        assertCommitted(bootstrap, IDLE, 5);

        String notDeleted = tool(bootstrap, "--delete", "--group", ACTIVE);
        assertTrue(notDeleted.contains("GroupNotEmptyException"), notDeleted);
        String deleted = tool(bootstrap, "--delete", "--group", IDLE);
        assertTrue(
            deleted.contains(
                "Deletion of requested consumer groups ('" + IDLE + "') was successful."),
            deleted);
        List<String> after = lines(tool(bootstrap, "--list"));
        assertFalse(after.contains(IDLE), after.toString());
        assertTrue(after.contains(ACTIVE), after.toString());
      }
      kelp.stop();
    }
  }

  private static String reset(String bootstrap, String group, String... how) {
    List<String> args =
        new ArrayList<>(List.of("--reset-offsets", "--group", group, "--topic", TOPIC));
    args.addAll(List.of(how));
    args.add("--execute");
    return tool(bootstrap, args.toArray(String[]::new));
  }

  private static void assertNewOffsets(String output, long offset) {
    List<Map<String, String>> rows = table(output, "GROUP");
    assertEquals(PARTITIONS, rows.size(), output);
    for (Map<String, String> row : rows) {
      assertEquals(Long.toString(offset), row.get("NEW-OFFSET"), output);
    }
  }

  private static void assertCommitted(String bootstrap, String group, long offset) {
    Map<Integer, Long> expected = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      expected.put(p, offset);
    }
    try (Admin admin = Clients.admin(bootstrap)) {
      assertEquals(expected, Groups.committed(admin, group));
    }
  }

  /**
   * Runs the tool with {@code --bootstrap-server} and {@code args}; returns its standard output and
   * error together (it reports failures on either, and exits 0 after some of them).
   */
  private static String tool(String bootstrap, String... args) {
    List<String> toolArgs = new ArrayList<>(List.of("--bootstrap-server", bootstrap));
    toolArgs.addAll(List.of(args));
    List<String> cmd = Groups.javaCommand(TOOL, toolArgs.toArray(String[]::new));
    Path out = null;
    try {
      out = Files.createTempFile("consumer-groups-", ".out");
      Process process =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      process.getOutputStream().close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        fail("kafka-consumer-groups " + String.join(" ", args) + " did not finish within 60 s");
      }
      return Files.readString(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      if (out != null) {
        out.toFile().delete();
      }
    }
  }

  /** The lines of the output that are not the logging library's complaints. */
  private static List<String> lines(String output) {
    return Arrays.stream(output.split("\n"))
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("SLF4J"))
        .toList();
  }

  /**
   * The rows of the table whose header line starts with {@code firstColumn}, as column name to
   * value. Columns are separated by spaces (a long value may leave only one); the state table's
   * "COORDINATOR (ID)" column holds "host:port (id)", so a parenthesised word belongs to the word
   * before it, in the header and in the rows.
   */
  private static List<Map<String, String>> table(String output, String firstColumn) {
    List<Map<String, String>> rows = new ArrayList<>();
    List<String> header = null;
    for (String line : lines(output)) {
      if (line.startsWith(firstColumn + " ")) {
        header = words(line);
        continue;
      }
      if (header == null || line.startsWith("Consumer group") || line.startsWith("Error")) {
        continue;
      }
      List<String> values = words(line);
      if (values.size() != header.size()) {
        fail("row " + line + " does not match header " + header + " in\n" + output);
      }
      Map<String, String> row = new HashMap<>();
      for (int i = 0; i < values.size(); i++) {
        row.put(header.get(i).split(" ")[0], values.get(i));
      }
      rows.add(row);
    }
    if (header == null) {
      fail("no table with a " + firstColumn + " column in\n" + output);
    }
    return rows;
  }

  private static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    for (String word : line.split("\\s+")) {
      if (word.startsWith("(") && !words.isEmpty()) {
        words.set(words.size() - 1, words.get(words.size() - 1) + " " + word);
      } else {
        words.add(word);
      }
    }
    return words;
  }
}
