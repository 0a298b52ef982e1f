package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kelp.seaweed.WeedProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A broker running as its own OS process, the way a user runs it: started from the command line,
 * ready when it logs its ready line, stopped with SIGTERM or killed with SIGKILL, and restarted on
 * the same port and data directory.
 *
 * <p>The broker is Kelp ({@code io.kelp.gateway.cli.Kelp serve}, on this JVM's own class path).
 * With {@code -Dcompat.broker=kafka} it is Apache Kafka instead, started by {@code
 * bench/kafka/kafka-server} with the same flags; that mode exists to show that the tests themselves
 * are right, since they must pass against the reference.
 *
 * <p>Kelp keeps its data in the local store under a new data directory, or, with {@code
 * -Dcompat.store=seaweedfs} (or {@link #startOnSeaweed}), in a real SeaweedFS: a {@code weed server
 * -filer} of its own ({@link WeedProcess}) that lives as long as this object. {@link #restart}
 * restarts only the broker, against the same filer, as an operator restarting Kelp would.
 *
 * <p>Every start writes the broker's output to {@code target/kelp-<test>-<n>.log} ({@code
 * target/kelp-<test>-seaweedfs-<n>.log} on SeaweedFS, where weed writes {@code
 * target/weed-<n>.log}).
 */
public final class KelpProcess implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final int STOP_SECONDS = 30;
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(STOP_SECONDS);
  private static final AtomicInteger STARTS = new AtomicInteger();
  private static final Pattern KELP_READY = Pattern.compile("Kelp \\S+ ready on \\S+");
  private static final Pattern KAFKA_READY = Pattern.compile("Kafka Server started");

  /** Flags of {@code kelp serve} that the Apache Kafka launcher understands too. */
  private static final Set<String> KAFKA_FLAGS =
      Set.of("--auto-create-topics", "--default-partitions");

  /** Where a Kelp broker keeps its data. */
  public enum Store {
    LOCAL,
    SEAWEEDFS;

    /** The store {@code -Dcompat.store} names: {@code local} (the default) or {@code seaweedfs}. */
    static Store configured() {
      String name = System.getProperty("compat.store", "local");
      return switch (name) {
        case "local" -> LOCAL;
        case "seaweedfs" -> SEAWEEDFS;
        default ->
            throw new IllegalArgumentException(
                "compat.store must be local or seaweedfs, not " + name);
      };
    }
  }

  private final String testName;
  private final boolean reference;
  private final Path dataDir;
  private final int port;
  private final int metricsPort;
  private final List<String> extraFlags;
  private final Store store;
  private WeedProcess weed;
  private boolean separateVolumeServer;
  private Process process;
  private Path log;
  private final List<Path> logs = new ArrayList<>();
  private Thread pump;
  private volatile boolean ready;

  private KelpProcess(String testName, Store store, List<String> extraFlags) throws IOException {
    this.testName = testName;
    this.reference = "kafka".equals(System.getProperty("compat.broker", "kelp"));
    // Apache Kafka keeps its log on the local disk whatever the store is; the store only
    // matters for Kelp.
    this.store = reference ? Store.LOCAL : store;
    this.dataDir = Files.createTempDirectory("kelp-" + testName + "-");
    this.port = LocalPorts.free();
    this.metricsPort = LocalPorts.free();
    this.extraFlags = List.copyOf(extraFlags);
    if (reference) {
      for (int i = 0; i < extraFlags.size(); i += 2) {
        if (!KAFKA_FLAGS.contains(extraFlags.get(i))) {
          throw new IllegalArgumentException("no Apache Kafka equivalent for " + extraFlags.get(i));
        }
      }
    }
  }

  /**
   * Starts a broker on a free port of 127.0.0.1 with a new data directory and waits until it is
   * ready.
   *
   * @param testName names the log files and the data directory
   * @param extraFlags more flags for {@code kelp serve}, such as {@code --default-partitions 3}
   */
  public static KelpProcess start(String testName, String... extraFlags) {
    return start(testName, Store.configured(), extraFlags);
  }

  /**
   * Starts a SeaweedFS and a broker on it, whatever {@code -Dcompat.store} says, for the tests of
   * SeaweedFS faults.
   */
  public static KelpProcess startOnSeaweed(String testName, String... extraFlags) {
    return start(testName, Store.SEAWEEDFS, false, extraFlags);
  }

  /**
   * As {@link #startOnSeaweed}, with SeaweedFS's volume server in a process of its own, for tests
   * that restart it alone ({@link WeedProcess#startWithSeparateVolumeServer}).
   */
  public static KelpProcess startOnSeaweedWithSeparateVolumeServer(
      String testName, String... extraFlags) {
    return start(testName, Store.SEAWEEDFS, true, extraFlags);
  }

  private static KelpProcess start(String testName, Store store, String... extraFlags) {
    return start(testName, store, false, extraFlags);
  }

  private static KelpProcess start(
      String testName, Store store, boolean separateVolumeServer, String... extraFlags) {
    try {
      KelpProcess kelp = new KelpProcess(testName, store, List.of(extraFlags));
      kelp.separateVolumeServer = separateVolumeServer;
      try {
        kelp.startWeed();
        kelp.launch();
      } catch (IOException | RuntimeException | Error e) {
        kelp.closeWeed();
        kelp.deleteDataDir();
        throw e;
      }
      return kelp;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The address a client bootstraps from. */
  public String bootstrap() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Whether this run uses Apache Kafka as the broker (to check the tests, not Kelp). */
  public boolean isReferenceKafka() {
    return reference;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** The store the broker runs on. */
  public Store store() {
    return store;
  }

  /**
   * The SeaweedFS the broker stores into, to stop, kill or restart it.
   *
   * @throws IllegalStateException if the broker runs on the local store
   */
  public WeedProcess weed() {
    if (weed == null) {
      throw new IllegalStateException(testName + " runs on the " + store + " store, not SeaweedFS");
    }
    return weed;
  }

  /** The log of the current (or last) start. */
  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: the broker gets no chance to flush or close anything. Waits until it is gone. */
  public void kill() {
    process.destroyForcibly();
    awaitExit(Duration.ofSeconds(30), "SIGKILL");
  }

  /**
   * SIGTERM: asserts that the broker exits by itself within {@value #STOP_SECONDS} seconds with
   * exit code 0 and that none of its starts reported a leaked buffer.
   */
  public void stop() {
    process.destroy();
    int code = awaitExit(STOP_TIMEOUT, "SIGTERM");
    // The JVM reports 143 (128 + SIGTERM) unless the program ends with its own exit status;
    // Apache Kafka does not, Kelp promises a clean 0.
    boolean clean = code == 0 || (reference && code == 143);
    assertTrue(clean, "broker exited with code " + code + " after SIGTERM; log " + log + tail());
    assertNoLeaks();
  }

  /**
   * Starts the broker again on the same port and data directory (and the same SeaweedFS); stops it
   * first if it runs.
   */
  public void restart() {
    if (isAlive()) {
      stop();
    }
    try {
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Kills the broker if it still runs, asserts that none of its starts reported a leaked buffer,
   * and deletes its data directory; stops its SeaweedFS and deletes that SeaweedFS's directory.
   */
  @Override
  public void close() {
    try {
      if (isAlive()) {
        kill();
      }
      assertNoLeaks();
    } finally {
      try {
        deleteDataDir();
      } finally {
        closeWeed();
      }
    }
  }

  private void startWeed() throws IOException {
    if (store != Store.SEAWEEDFS) {
      return;
    }
    try {
      weed =
          separateVolumeServer ? WeedProcess.startWithSeparateVolumeServer() : WeedProcess.start();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting SeaweedFS", e);
    }
  }

  private void closeWeed() {
    if (weed == null) {
      return;
    }
    try {
      weed.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      weed = null;
    }
  }

  private void deleteDataDir() {
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void launch() throws IOException {
    Files.createDirectories(Path.of("target"));
    String storeTag = store == Store.SEAWEEDFS ? "-seaweedfs" : "";
    log =
        Path.of("target", "kelp-" + testName + storeTag + "-" + STARTS.incrementAndGet() + ".log");
    logs.add(log);
    ProcessBuilder builder = new ProcessBuilder(command()).redirectErrorStream(true);
    process = builder.start();
    process.getOutputStream().close();
    ready = false;
    CountDownLatch readyOrGone = new CountDownLatch(1);
    Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
    Pattern readyLine = reference ? KAFKA_READY : KELP_READY;
    BufferedReader in =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    pump =
        new Thread(
            () -> {
              try (in;
                  out) {
                String line;
                while ((line = in.readLine()) != null) {
                  out.write(line);
                  out.write('\n');
                  out.flush();
                  if (!ready && readyLine.matcher(line).find()) {
                    ready = true;
                    readyOrGone.countDown();
                  }
                }
              } catch (IOException e) {
                // the process is gone; what it wrote is in the log
              } finally {
                readyOrGone.countDown();
              }
            },
            "kelp-output-" + testName);
    pump.setDaemon(true);
    pump.start();
    boolean signalled;
    try {
      signalled = readyOrGone.await(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      signalled = false;
    }
    if (!ready) {
      String why =
          signalled
              ? "exited before it was ready"
              : "was not ready within " + READY_TIMEOUT.toSeconds() + " s";
      process.destroyForcibly();
      awaitExit(Duration.ofSeconds(30), "SIGKILL");
      String shown =
          String.join(" ", command())
              .replace(System.getProperty("java.class.path"), "<test class path>");
      String weedLog = weed == null ? "" : "; SeaweedFS log " + weed.log();
      fail("broker " + why + "; command: " + shown + "; log " + log + weedLog + tail());
    }
  }

  private List<String> command() {
    List<String> cmd = new ArrayList<>();
    if (reference) {
      cmd.add("bash");
      cmd.add(
          Path.of("..", "bench", "kafka", "kafka-server").toAbsolutePath().normalize().toString());
      cmd.addAll(List.of("--listen", bootstrap(), "--data-dir", dataDir.toString()));
      cmd.addAll(List.of("--heap", "512m"));
    } else {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      cmd.add(java.toString());
      cmd.add("-Xmx512m");
      cmd.add("-Dio.netty.leakDetection.level=paranoid");
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add("io.kelp.gateway.cli.Kelp");
      cmd.add("serve");
      cmd.addAll(List.of("--listen", bootstrap(), "--data-dir", dataDir.toString()));
      cmd.addAll(List.of("--broker-id", "0", "--metrics-listen", "127.0.0.1:" + metricsPort));
      if (store == Store.SEAWEEDFS) {
        cmd.addAll(List.of("--store", "seaweedfs", "--filer", weed.filerAddress()));
      }
      // Tests form groups at once; Kafka's reference configuration sets the same delay.
      cmd.addAll(List.of("--group-initial-rebalance-delay-ms", "0"));
      // KIP-848 members that crash are noticed after the broker's session timeout; Kafka's
      // default (45 s) would make the crash tests wait, so Kelp runs them with a shorter one.
      cmd.addAll(List.of("--group-consumer-session-timeout-ms", "10000"));
      cmd.addAll(List.of("--group-consumer-heartbeat-interval-ms", "1000"));
    }
    cmd.addAll(extraFlags);
    return cmd;
  }

  private int awaitExit(Duration timeout, String signal) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        fail("broker did not exit within " + timeout.toSeconds() + " s of " + signal + tail());
      }
      pump.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the broker to exit", e);
    }
    return process.exitValue();
  }

  /** Paranoid leak detection logs "LEAK:" for every buffer released late or never. */
  private void assertNoLeaks() {
    for (Path file : logs) {
      if (!Files.exists(file)) {
        continue;
      }
      try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
        List<String> leaks = lines.filter(l -> l.contains("LEAK:")).limit(5).toList();
        assertTrue(leaks.isEmpty(), "broker reported leaked buffers in " + file + ": " + leaks);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The last lines of the current log, for failure messages. */
  String tail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return "\n--- last lines of "
          + log
          + " ---\n"
          + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
