package io.kelp.gateway.cli;

import io.kelp.gateway.server.Broker;
import io.kelp.gateway.server.BrokerConfig;
import io.kelp.gateway.server.BrokerSettings.Setting;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * {@code kelp serve}: runs a broker until SIGTERM (or Ctrl-C), which flushes everything to the
 * store and exits with status 0. Its flags are generated from {@link BrokerConfig#SETTINGS}, so
 * flags, config-file keys and environment variables never drift apart.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Run a Kafka-compatible broker.",
      "Every setting is also a config-file key and an environment variable (KELP_ and the key in"
          + " upper case, dots as underscores); a flag wins over the environment, which wins over"
          + " the file."
    })
final class ServeCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "A Java properties file of settings, keyed as listed here (e.g. data.dir).")
  Path configFile;

  private final Map<String, String> flags = new LinkedHashMap<>();

  /** The command with one option per broker setting. */
  static CommandLine commandLine() {
    ServeCommand command = new ServeCommand();
    CommandSpec spec = CommandSpec.forAnnotatedObject(command);
    for (Setting s : BrokerConfig.SETTINGS) {
      String def = s.defaultValue().isEmpty() ? "" : " Default: " + s.defaultValue() + ".";
      spec.addOption(
          OptionSpec.builder(s.flag())
              .paramLabel(s.label())
              .type(String.class)
              .description(s.description() + def + " Key " + s.key() + ", env " + s.envVar() + ".")
              .setter(
                  new ISetter() {
                    @Override
                    public <T> T set(T value) {
                      command.flags.put(s.key(), (String) value);
                      return null;
                    }
                  })
              .build());
    }
    return new CommandLine(spec);
  }

  @Override
  public Integer call() throws InterruptedException {
    BrokerConfig config;
    try {
      config = BrokerConfig.resolve(flags, System.getenv(), loadFile());
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("kelp serve: " + e.getMessage());
      return 2;
    }
    Broker broker;
    try {
      broker = Broker.start(config);
    } catch (IOException e) {
      LOG.error("Kelp could not start: {}", e.toString());
      LOG.debug("Start failure", e);
      return 1;
    } catch (RuntimeException e) {
      LOG.error("Kelp could not start: {}", e.toString(), e);
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(broker, stopped), "kelp-shutdown"));
    stopped.await();
    return 0;
  }

  /**
   * Runs in the shutdown hook (SIGTERM, SIGINT): flushes and closes the broker, then ends the
   * process with 0 if that worked. Halting here is what turns a SIGTERM into exit status 0.
   */
  private static void stop(Broker broker, CountDownLatch stopped) {
    int status = 0;
    try {
      broker.close();
    } catch (Exception e) {
      LOG.error("Stopping Kelp failed; data not yet flushed may be lost", e);
      status = 1;
    } finally {
      stopped.countDown();
    }
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(status);
  }

  private Properties loadFile() throws IOException {
    Properties p = new Properties();
    if (configFile != null) {
      if (!Files.isRegularFile(configFile)) {
        throw new IOException("config file " + configFile + " does not exist");
      }
      try (InputStream in = Files.newInputStream(configFile)) {
        p.load(in);
      }
    }
    return p;
  }
}
