package io.kelp.gateway.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kelp serve} as a separate process, the way users and the compat tests run it: flags,
 * environment and config file, the ready line, SIGTERM with exit status 0; then {@code kelp dump}
 * on what it stored.
 */
class ServeCommandTest {
  private static final Pattern READY =
      Pattern.compile(
          "Kelp (\\S+) ready on 127\\.0\\.0\\.1:(\\d+) \\(store local:(.+), broker (\\d+), tail"
              + " cache (\\d+) MiB\\)");

  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  /** Never leave a broker behind, whatever the test did. */
  @AfterEach
  void killLeftovers() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private record Served(
      Process process,
      BlockingQueue<String> lines,
      List<String> all,
      Thread reader,
      Matcher ready) {}

  private Served serve(Map<String, String> env, String... args) throws Exception {
    Process process = launch(env, args);
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    List<String> all = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  lines.add(line);
                  all.add(line);
                }
              } catch (Exception e) {
                // process ended
              }
            });
    reader.setDaemon(true);
    reader.start();
    long deadline = System.currentTimeMillis() + 60000;
    while (System.currentTimeMillis() < deadline) {
      String line = lines.poll(1, TimeUnit.SECONDS);
      if (line == null) {
        if (!process.isAlive()) {
          break;
        }
        continue;
      }
      Matcher m = READY.matcher(line);
      if (m.find()) {
        return new Served(process, lines, all, reader, m);
      }
    }
    process.destroyForcibly();
    throw new AssertionError("no ready line; output: " + lines);
  }

  private static List<String> drain(Served s) throws InterruptedException {
    List<String> out = new ArrayList<>();
    s.lines().drainTo(out);
    return out;
  }

  @Test
  void serveStoresRecordsStopsCleanlyOnSigtermAndDumpPrintsThem() throws Exception {
    Path data = dir.resolve("data");
    Path config = dir.resolve("kelp.properties");
    Properties p = new Properties();
    p.setProperty("broker.id", "1");
    p.setProperty("default.partitions", "5");
    try (var out = Files.newOutputStream(config)) {
      p.store(out, null);
    }
    Served s =
        serve(
            Map.of("KELP_BROKER_ID", "2"),
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            data.toString(),
            "--metrics-listen",
            "127.0.0.1:0",
            "--config",
            config.toString(),
            "--broker-id",
            "3");
    assertEquals("3", s.ready().group(4), "flag beats env beats file");
    long tailMiB = Long.parseLong(s.ready().group(5));
    assertTrue(tailMiB > 0 && tailMiB <= 256, "auto on the local store: at most 256 MiB");
    assertEquals(data.toAbsolutePath().normalize().toString(), s.ready().group(3));
    String bootstrap = "127.0.0.1:" + s.ready().group(2);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic("dumped", 2, (short) 1))).all().get();
    }
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap, "acks", "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(
              "dumped",
              1,
              1234L,
              "k1".getBytes(StandardCharsets.UTF_8),
              new byte[] {(byte) 0xff, 1});
      r.headers().add(new RecordHeader("h", "hv".getBytes(StandardCharsets.UTF_8)));
      producer.send(r).get();
      producer
          .send(
              new ProducerRecord<>(
                  "dumped", 1, 1235L, null, "plain".getBytes(StandardCharsets.UTF_8)))
          .get();
    }
    // SIGTERM through the process handle: Process.destroy() would also close our end of its
    // output, losing the last lines.
    s.process().toHandle().destroy();
    assertTrue(s.process().waitFor(60, TimeUnit.SECONDS), "stops after SIGTERM");
    assertEquals(0, s.process().exitValue());
    s.reader().join(10000);
    List<String> tail = drain(s);
    assertTrue(tail.stream().anyMatch(l -> l.contains("Kelp stopped")), tail.toString());

    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    int code;
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      code =
          Kelp.commandLine()
              .execute(
                  "dump", "--data-dir", data.toString(), "--topic", "dumped", "--partition", "1");
    } finally {
      System.setOut(saved);
    }
    assertEquals(0, code);
    String[] lines = captured.toString(StandardCharsets.UTF_8).trim().split("\n");
    assertEquals(2, lines.length, captured.toString(StandardCharsets.UTF_8));
    ObjectMapper json = new ObjectMapper();
    JsonNode first = json.readTree(lines[0]);
    assertEquals(1, first.get("partition").asInt());
    assertEquals(0, first.get("offset").asLong());
    assertEquals(1234L, first.get("timestamp").asLong());
    assertEquals("CreateTime", first.get("timestampType").asText());
    assertEquals("k1", first.get("key").asText());
    assertEquals("/wE=", first.get("value").asText());
    assertEquals("base64", first.get("valueEncoding").asText());
    assertEquals("h", first.get("headers").get(0).get("key").asText());
    assertEquals("hv", first.get("headers").get(0).get("value").asText());
    JsonNode second = json.readTree(lines[1]);
    assertEquals(1, second.get("offset").asLong());
    assertTrue(second.get("key").isNull());
    assertEquals("plain", second.get("value").asText());
    assertEquals(0, second.get("headers").size());
  }

  @Test
  void healthAndMetricsAreServedWhileRunning() throws Exception {
    Served s =
        serve(
            Map.of("KELP_METRICS_LISTEN", "127.0.0.1:0"),
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.resolve("d").toString());
    try {
      String line;
      synchronized (s.all()) {
        line = s.all().stream().filter(l -> l.contains("/metrics")).findFirst().orElse(null);
      }
      assertNotNull(s.ready());
      // The metrics port is logged; find it and ask for /health.
      assertNotNull(line, "the metrics endpoint is logged");
      Matcher m = Pattern.compile("127\\.0\\.0\\.1:(\\d+)").matcher(line);
      assertTrue(m.find(), line);
      HttpResponse<String> health =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(1) + "/health"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode());
    } finally {
      s.process().toHandle().destroy();
      s.process().waitFor(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void badSettingsFailFastNamingTheSetting() throws Exception {
    Process p = serveUntilExit("--default-partitions", "zero");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(2, p.exitValue());
    assertTrue(out.contains("default.partitions"), out);
  }

  @Test
  void anAddressInUseFailsTheStartNamingTheAddressAndItsSetting() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String address = "127.0.0.1:" + taken.getLocalPort();
      Process kafka =
          serveUntilExit(
              "--listen",
              address,
              "--metrics-listen",
              "off",
              "--data-dir",
              dir.resolve("a").toString());
      String out = new String(kafka.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(kafka.waitFor(60, TimeUnit.SECONDS));
      assertEquals(1, kafka.exitValue(), out);
      assertTrue(out.contains("cannot listen for Kafka clients on " + address + " (--listen"), out);

      Process metrics =
          serveUntilExit(
              "--listen",
              "127.0.0.1:0",
              "--metrics-listen",
              address,
              "--data-dir",
              dir.resolve("b").toString());
      out = new String(metrics.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(metrics.waitFor(60, TimeUnit.SECONDS));
      assertEquals(1, metrics.exitValue(), out);
      assertTrue(
          out.contains("cannot listen for metrics on " + address + " (--metrics-listen"), out);
    }
  }

  /** {@code kelp serve args}, for a start expected to fail, its output merged. */
  private Process serveUntilExit(String... args) throws Exception {
    return launch(Map.of(), args);
  }

  /** Starts {@code kelp serve args} with {@code env} added, its output merged. */
  private Process launch(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Kelp.class.getName());
    cmd.add("serve");
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process process = pb.start();
    started.add(process);
    return process;
  }
}
