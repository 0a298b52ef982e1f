package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The clients of other languages, each through a user's whole session: confluent-kafka (Python on
 * librdkafka) with the classic and the KIP-848 group protocol, kafka-python, kafkajs, franz-go, and
 * sarama with its default protocol versions and with Kafka 2.0's. Each scenario ({@code
 * compat-tests/clients/<client>}) creates a topic of three partitions, produces keyed records with
 * headers (acks=all, compressed; idempotent where the client offers it), reads them exactly once
 * and in offset order in a consumer group and commits, produces more and checks that the group
 * resumes with exactly those, checks what the client's admin API reports (the group's offsets and
 * state, and in most scenarios end offsets, offsets by time and the topic's configs), and deletes
 * the topic. A scenario prints {@code OK ...} and exits 0, or prints {@code FAIL <why>} and exits
 * 1. {@code bin/install-test-tools} installs the clients into {@code .tools/clients}.
 */
class OtherClientsCompatTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(150);
  private static final int RECORDS = 2000;

  /** A client and how to run its scenario. */
  enum Client {
    CONFLUENT_KAFKA_CLASSIC_GROUP("confluent-kafka", "classic"),
    CONFLUENT_KAFKA_CONSUMER_GROUP("confluent-kafka", "consumer"),
    KAFKA_PYTHON("kafka-python", null),
    KAFKAJS("kafkajs", null),
    FRANZ_GO("franz-go", null),
    SARAMA("sarama", null),
    /** sarama told to expect Kafka 2.0, so it speaks that release's request versions. */
    SARAMA_KAFKA_2_0("sarama", "2.0.0");

    final String dir;
    final String lastArgument;

    Client(String dir, String lastArgument) {
      this.dir = dir;
      this.lastArgument = lastArgument;
    }

    /** The command line of the scenario, with the client installed under {@code tools}. */
    List<String> command(Path tools, Path scenarios, String bootstrap) {
      Path installed = tools.resolve(dir);
      List<String> cmd = new ArrayList<>();
      switch (this) {
        case CONFLUENT_KAFKA_CLASSIC_GROUP, CONFLUENT_KAFKA_CONSUMER_GROUP, KAFKA_PYTHON -> {
          cmd.add(installed.resolve("venv/bin/python").toString());
          cmd.add(scenarios.resolve(dir).resolve("scenario.py").toString());
        }
        case KAFKAJS -> {
          cmd.add("node");
          cmd.add(scenarios.resolve(dir).resolve("scenario.js").toString());
        }
        case FRANZ_GO, SARAMA, SARAMA_KAFKA_2_0 ->
            cmd.add(installed.resolve("scenario").toString());
      }
      cmd.add(bootstrap);
      cmd.add(Integer.toString(RECORDS));
      if (lastArgument != null) {
        cmd.add(lastArgument);
      }
      return cmd;
    }
  }

  private static KelpProcess kelp;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("OtherClientsCompatTest");
  }

  @AfterAll
  static void stopBroker() {
    if (kelp == null) {
      return; // it never started; the start failure is the report
    }
    try {
      kelp.stop();
    } finally {
      kelp.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aWholeSessionOfTheClientSucceeds(Client client) throws Exception {
    Path root = checkoutRoot();
    Path tools = root.resolve(".tools/clients");
    assertTrue(
        Files.isDirectory(tools.resolve(client.dir)),
        client.dir
            + " is not installed: run bin/install-test-tools, which installs it into "
            + tools);
    List<String> cmd =
        client.command(tools, root.resolve("compat-tests/clients"), kelp.bootstrap());
    Path out = Paths.get("target", "client-" + client.name().toLowerCase() + ".out");
    ProcessBuilder builder =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
    Map<String, String> env = builder.environment();
    env.put("NODE_PATH", tools.resolve("kafkajs/node_modules").toString());
    Process process = builder.start();
    if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      fail(client + " did not finish within " + TIMEOUT + ":\n" + read(out));
    }
    String output = read(out);
    assertEquals(0, process.exitValue(), client + " failed:\n" + output);
    assertTrue(
        output.lines().anyMatch(l -> l.startsWith("OK ")),
        client + " exited 0 without its OK line:\n" + output);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The checkout this test runs in: the first directory upwards that holds compat-tests/clients.
   */
  private static Path checkoutRoot() {
    for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("compat-tests/clients"))) {
        return d;
      }
    }
    throw new IllegalStateException("compat-tests/clients not found above " + Paths.get(""));
  }
}
