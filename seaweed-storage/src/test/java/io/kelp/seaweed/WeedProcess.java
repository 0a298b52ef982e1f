package io.kelp.seaweed;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real SeaweedFS for tests: one {@code weed server -filer} process (master, volume server and
 * filer) bound to 127.0.0.1, with its own free ports and temporary directory. It can be stopped and
 * started again on the same directory and ports, as a restarted filer would be. Its output goes to
 * {@code target/weed-<n>.log}.
 *
 * <p>SeaweedFS serves gRPC on each HTTP port plus {@value #GRPC_OFFSET}, so both must be free.
 */
public final class WeedProcess implements AutoCloseable {
  static final int GRPC_OFFSET = 10000;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(3);
  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final int PORT_LOW = 20000;
  private static final int PORT_HIGH = 32768 - GRPC_OFFSET;
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private final Path binary;
  private final Path dir;
  private final Path log;
  private final int masterPort;
  private final int volumePort;
  private final int filerPort;
  private final int filerGrpcPort;
  private final boolean separateVolume;
  private Process volume;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;

  private WeedProcess(boolean ownFilerGrpcPort, boolean separateVolume) throws IOException {
    this.separateVolume = separateVolume;
    binary = findBinary();
    dir = Files.createTempDirectory("kelp-weed-");
    Path target = Paths.get("target").toAbsolutePath();
    Files.createDirectories(target);
    Path candidate;
    do {
      candidate = target.resolve("weed-" + SEQUENCE.incrementAndGet() + ".log");
    } while (Files.exists(candidate));
    log = candidate;
    int[] ports = freePorts(4);
    masterPort = ports[0];
    volumePort = ports[1];
    filerPort = ports[2];
    filerGrpcPort = ownFilerGrpcPort ? ports[3] : filerPort + GRPC_OFFSET;
  }

  /** Starts a fresh SeaweedFS and waits until its filer can store a file. */
  public static WeedProcess start() throws IOException, InterruptedException {
    return start(false, false);
  }

  /**
   * Starts a fresh SeaweedFS whose volume server is a process of its own ({@code weed volume}, next
   * to a {@code weed server -filer -volume=false} with the master and the filer), so that it can be
   * killed and restarted alone: {@link #killVolume}, {@link #startVolume}.
   */
  public static WeedProcess startWithSeparateVolumeServer()
      throws IOException, InterruptedException {
    return start(false, true);
  }

  /**
   * Starts a fresh SeaweedFS whose filer serves gRPC on a port of its own ({@code
   * -filer.port.grpc}) rather than on its HTTP port + {@value #GRPC_OFFSET}; {@link #filerAddress}
   * then names it as SeaweedFS does, {@code 127.0.0.1:<http port>.<grpc port>}.
   */
  public static WeedProcess startWithOwnFilerGrpcPort() throws IOException, InterruptedException {
    return start(true, false);
  }

  /**
   * Starts a fresh SeaweedFS whose volume servers take writes only with a token: a {@code
   * security.toml} in weed's working directory sets a {@code jwt.signing} key, so each assignment
   * comes with a JWT that an upload or delete must carry.
   */
  public static WeedProcess startWithWriteTokens() throws IOException, InterruptedException {
    WeedProcess weed = new WeedProcess(false, false);
    weed.requireWriteTokens();
    return started(weed);
  }

  /**
   * Writes the {@code security.toml} of {@link #startWithWriteTokens} into weed's working
   * directory: volume servers require write tokens from its next {@link #restart} on.
   */
  public void requireWriteTokens() throws IOException {
    Files.writeString(
        dir.resolve("security.toml"),
        "[jwt.signing]\nkey = \"kelp-test-" + ThreadLocalRandom.current().nextLong() + "\"\n");
  }

  /**
   * Whether the master hands out file ids with a write token (in the {@code Authorization} header
   * of its answer to {@code /dir/assign}).
   */
  public boolean assignsWriteTokens() throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + masterPort + "/dir/assign"))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (!response.body().contains("\"fid\"")) {
      throw new IOException("the master assigned no file id: " + response.body());
    }
    return response.headers().firstValue("Authorization").isPresent();
  }

  private static WeedProcess start(boolean ownFilerGrpcPort, boolean separateVolume)
      throws IOException, InterruptedException {
    return started(new WeedProcess(ownFilerGrpcPort, separateVolume));
  }

  private static WeedProcess started(WeedProcess weed) throws IOException, InterruptedException {
    try {
      weed.startProcess();
    } catch (IOException | InterruptedException | RuntimeException e) {
      weed.close();
      throw e;
    }
    return weed;
  }

  /**
   * The filer's address for clients, {@code 127.0.0.1:<http port>}, followed by {@code .<grpc
   * port>} when that is not the HTTP port + {@value #GRPC_OFFSET}.
   */
  public String filerAddress() {
    String http = "127.0.0.1:" + filerPort;
    return filerGrpcPort == filerPort + GRPC_OFFSET ? http : http + "." + filerGrpcPort;
  }

  /** The filer's HTTP address alone, {@code 127.0.0.1:<http port>}. */
  public String filerHttpAddress() {
    return "127.0.0.1:" + filerPort;
  }

  /** The volume server's address, {@code 127.0.0.1:<http port>}, as the master hands it out. */
  public String volumeAddress() {
    return "127.0.0.1:" + volumePort;
  }

  public int filerGrpcPort() {
    return filerGrpcPort;
  }

  /** The directory weed keeps its volumes (and master and filer state) in. */
  public Path dataDir() {
    return dir;
  }

  public Path log() {
    return log;
  }

  /** The process id of the running weed, for log lines and signals. */
  public long pid() {
    return process.pid();
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Stops weed (SIGTERM, then SIGKILL after a grace period); the directory stays. */
  public void stop() throws InterruptedException {
    stopVolume();
    if (process == null) {
      return;
    }
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    process = null;
  }

  /** SIGKILLs the separate volume server at once, as a crash would; its directory stays. */
  public void killVolume() throws InterruptedException {
    if (volume == null) {
      throw new IllegalStateException("no separate volume server is running");
    }
    volume.destroyForcibly();
    volume.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    volume = null;
  }

  /** The process id of the separate volume server. */
  public long volumePid() {
    return volume.pid();
  }

  private void stopVolume() throws InterruptedException {
    if (volume == null) {
      return;
    }
    volume.destroy();
    if (!volume.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      volume.destroyForcibly();
      volume.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    volume = null;
  }

  /**
   * Starts the separate volume server (again, after {@link #killVolume}) on its directory and port,
   * and waits until the master hands out file ids on it.
   */
  public void startVolume() throws IOException, InterruptedException {
    if (!separateVolume) {
      throw new IllegalStateException("this SeaweedFS runs its volume server inside weed server");
    }
    if (volume != null) {
      return;
    }
    Path volumeDir = dir.resolve("volume");
    Files.createDirectories(volumeDir);
    List<String> command =
        List.of(
            binary.toString(),
            "volume",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            "-port=" + volumePort,
            "-dir=" + volumeDir,
            "-max=64",
            "-master=127.0.0.1:" + masterPort,
            "-preStopSeconds=0");
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    volume = builder.start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!answers("http://127.0.0.1:" + masterPort + "/dir/assign", "\"fid\"")) {
      if (!volume.isAlive() || System.nanoTime() > deadline) {
        throw new IOException("the volume server did not come up; see " + log);
      }
      Thread.sleep(100);
    }
  }

  /** SIGKILLs weed at once, as a crash would; the directory stays. */
  public void kill() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    process = null;
  }

  /** Starts weed again on the same directory and ports, after {@link #stop} or {@link #kill}. */
  public void restart() throws IOException, InterruptedException {
    stop();
    startProcess();
  }

  @Override
  public void close() throws IOException {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (Files.exists(dir)) {
      try (Stream<Path> paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  private void startProcess() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.add("server");
    command.add("-filer");
    command.add("-ip=127.0.0.1");
    command.add("-ip.bind=127.0.0.1");
    command.add("-dir=" + dir);
    command.add("-master.port=" + masterPort);
    command.add("-volume.port=" + volumePort);
    command.add("-filer.port=" + filerPort);
    command.add("-filer.port.grpc=" + filerGrpcPort);
    if (separateVolume) {
      command.add("-volume=false");
    }
    // Small volumes and no stop delay keep a test's disk use and restarts short.
    command.add("-master.volumeSizeLimitMB=64");
    command.add("-volume.max=64");
    command.add("-volume.preStopSeconds=0");
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    process = builder.start();
    if (separateVolume) {
      startVolume();
    }
    awaitReady();
  }

  /** Waits until the master hands out a file id and the filer answers HTTP. */
  private void awaitReady() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    boolean assigned = false;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            "weed exited with " + process.exitValue() + " while starting; see " + log);
      }
      if (!assigned) {
        assigned = answers("http://127.0.0.1:" + masterPort + "/dir/assign", "\"fid\"");
      }
      if (assigned && answers("http://127.0.0.1:" + filerPort + "/", null)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IOException("weed did not become ready within " + START_TIMEOUT + "; see " + log);
  }

  private boolean answers(String url, String bodyMarker) throws InterruptedException {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return response.statusCode() < 500
          && (bodyMarker == null || response.body().contains(bodyMarker));
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Free ports whose gRPC twin (port + 10000) is free too, from 20000-22767 so that the twins stay
   * in 30000-32767: both below Linux's ephemeral range (32768 and up), where the kernel picks the
   * local ports of outgoing connections, so no client connection can take one between the choice
   * and weed's bind. A port handed out once is not handed out again in this JVM.
   */
  private static int[] freePorts(int count) throws IOException {
    int[] ports = new int[count];
    int found = 0;
    InetAddress loopback = InetAddress.getLoopbackAddress();
    synchronized (HANDED_OUT) {
      for (int attempt = 0; found < count; attempt++) {
        if (attempt == 10_000) {
          throw new IOException("no free port pair in " + PORT_LOW + "-" + (PORT_HIGH - 1));
        }
        int port = ThreadLocalRandom.current().nextInt(PORT_LOW, PORT_HIGH);
        if (HANDED_OUT.contains(port)) {
          continue;
        }
        try (ServerSocket http = new ServerSocket(port, 1, loopback);
            ServerSocket grpc = new ServerSocket(port + GRPC_OFFSET, 1, loopback)) {
          HANDED_OUT.add(port);
          ports[found++] = port;
        } catch (IOException taken) {
          // try another
        }
      }
    }
    return ports;
  }

  /** .tools/bin/weed in this checkout (found upwards from the working directory), else PATH. */
  static Path findBinary() {
    for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path tool = d.resolve(".tools/bin/weed");
      if (Files.isExecutable(tool)) {
        return tool;
      }
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String entry : path.split(File.pathSeparator)) {
        Path tool = Paths.get(entry, "weed");
        if (Files.isExecutable(tool)) {
          return tool;
        }
      }
    }
    throw new UncheckedIOException(
        new IOException(
            "SeaweedFS's weed binary is missing: run bin/install-test-tools, which installs it"
                + " into .tools/bin, or put weed on the PATH"));
  }
}
