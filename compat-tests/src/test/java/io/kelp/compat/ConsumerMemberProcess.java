package io.kelp.compat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ConsumerMember} in a JVM of its own, so that a test can crash it honestly: SIGKILL, no
 * LeaveGroup, no last commit, heartbeats stop. Its events arrive on its standard output and are
 * passed on to the test's {@link ConsumerMember.Events}, and kept in {@code
 * target/member-<group>-<name>.out}; its log goes to {@code target/member-<group>-<name>.log}.
 */
final class ConsumerMemberProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Thread reader;

  private ConsumerMemberProcess(
      String name, Process process, Path transcript, ConsumerMember.Events events) {
    this.name = name;
    this.process = process;
    this.reader = new Thread(() -> read(events, transcript), "member-output-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a member; the settings are those of {@link ConsumerMember#start}. */
  static ConsumerMemberProcess start(
      String name,
      String bootstrap,
      String topic,
      Map<String, Object> config,
      ConsumerMember.Events events) {
    List<String> cmd = new ArrayList<>(Groups.javaCommand(ConsumerMember.class.getName()));
    cmd.addAll(List.of(name, bootstrap, topic));
    config.forEach((k, v) -> cmd.add(k + "=" + v));
    try {
      Files.createDirectories(Path.of("target"));
      String prefix = "member-" + config.get("group.id") + "-" + name;
      Path log = Path.of("target", prefix + ".log");
      Process process =
          new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.to(log.toFile())).start();
      return new ConsumerMemberProcess(name, process, Path.of("target", prefix + ".out"), events);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start member " + name, e);
    }
  }

  /** SIGKILL; returns once the process is gone and everything it wrote has been read. */
  void kill() {
    // Through the process handle: Process.destroyForcibly() also closes our end of the pipe, which
    // throws away what the member wrote just before it died (its last records and commits), and
    // the ledger would then miss a commit the broker did take.
    process.toHandle().destroyForcibly();
    awaitExit();
  }

  /** Ends the member's standard input, which makes it close its consumer and exit. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      awaitExit();
      return;
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // already closed
    }
    if (awaitExit() != 0) {
      throw new AssertionError("member " + name + " exited with " + process.exitValue());
    }
  }

  private int awaitExit() {
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError("member " + name + " did not exit within 60 s");
      }
      reader.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return process.exitValue();
  }

  private void read(ConsumerMember.Events events, Path transcript) {
    try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer out = Files.newBufferedWriter(transcript, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        out.write(line);
        out.write('\n');
        // a line without its end mark was cut short by SIGKILL, or is not ours
        if (line.endsWith(" .")) {
          dispatch(line.substring(0, line.length() - 2), events);
        }
      }
    } catch (IOException e) {
      // the process is gone
    }
  }

  private void dispatch(String line, ConsumerMember.Events events) {
    int space = line.indexOf(' ');
    String kind = space < 0 ? line : line.substring(0, space);
    String rest = space < 0 ? "" : line.substring(space + 1);
    switch (kind) {
      case "assigned" -> events.assigned(name, partitions(rest));
      case "revoked" -> events.revoked(name, partitions(rest));
      case "lost" -> events.lost(name, partitions(rest));
      case "consumed" -> {
        String[] f = rest.split(" ", 3);
        events.consumed(name, Integer.parseInt(f[0]), Long.parseLong(f[1]), f[2]);
      }
      case "committing" -> events.committing(name, offsets(rest));
      case "committed" -> events.committed(name, offsets(rest));
      case "failed" -> events.failed(name, rest);
      default -> {
        // "closed" and anything else carry no event
      }
    }
  }

  private static List<Integer> partitions(String text) {
    return text.equals("-")
        ? List.of()
        : Arrays.stream(text.split(",")).map(Integer::valueOf).toList();
  }

  private static Map<Integer, Long> offsets(String text) {
    Map<Integer, Long> offsets = new TreeMap<>();
    for (String pair : text.split(",")) {
      String[] f = pair.split(":");
      offsets.put(Integer.valueOf(f[0]), Long.valueOf(f[1]));
    }
    return offsets;
  }
}
