package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the {@code kcat} binary (librdkafka's command line client) with a time limit. */
public final class Kcat {
  private Kcat() {}

  /** What a kcat run printed and how it ended. */
  public record Result(int exitCode, String stdout, String stderr) {
    /** The standard output split into lines, without the empty last one. */
    public List<String> lines() {
      return stdout.isEmpty() ? List.of() : List.of(stdout.split("\n"));
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
    }
  }

  /**
   * Runs {@code kcat args...}, writes {@code stdin} to its standard input and closes it, and waits
   * at most {@code timeout}; a run that takes longer is killed and fails the test.
   */
  public static Result run(Duration timeout, String stdin, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("kcat");
    cmd.addAll(List.of(args));
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("kcat-", ".out");
      err = Files.createTempFile("kcat-", ".err");
      Process process =
          new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      try (OutputStream in = process.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      Result result =
          new Result(
              exited ? process.exitValue() : -1,
              Files.readString(out, StandardCharsets.UTF_8),
              Files.readString(err, StandardCharsets.UTF_8));
      if (!exited) {
        fail(
            "kcat " + String.join(" ", args) + " did not finish within " + timeout + ": " + result);
      }
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + cmd, e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  /** A kcat that runs until stopped, such as a balanced consumer ({@code -G}). */
  public static final class Running implements AutoCloseable {
    private final Process process;
    private final Path out;
    private final Path err;

    private Running(Process process, Path out, Path err) {
      this.process = process;
      this.out = out;
      this.err = err;
    }

    /** What it printed to standard output so far. */
    public String stdout() {
      return read(out);
    }

    /** What it printed to standard error so far (kcat reports rebalances there). */
    public String stderr() {
      return read(err);
    }

    /**
     * SIGTERM, as Ctrl-C would: kcat closes its consumer (committing and leaving the group) and
     * exits. Returns what it printed; a kcat that does not exit within 30 s fails the test.
     */
    public Result stop() {
      process.destroy();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
          fail("kcat did not exit within 30 s of SIGTERM; stderr:\n" + stderr());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return new Result(process.exitValue(), stdout(), stderr());
    }

    /** Kills kcat if it still runs and deletes its output files. */
    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroyForcibly();
        try {
          process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      deleteQuietly(out);
      deleteQuietly(err);
    }

    private static String read(Path file) {
      try {
        return Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Starts {@code kcat args...} with an empty standard input and returns at once. */
  public static Running start(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("kcat");
    cmd.addAll(List.of(args));
    try {
      Path out = Files.createTempFile("kcat-", ".out");
      Path err = Files.createTempFile("kcat-", ".err");
      Process process =
          new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      process.getOutputStream().close();
      return new Running(process, out, err);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + cmd, e);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a temp file left behind is harmless
      }
    }
  }
}
