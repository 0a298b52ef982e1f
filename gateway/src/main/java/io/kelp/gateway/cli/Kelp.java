package io.kelp.gateway.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code kelp} command: the entry point of every Kelp process. */
@Command(
    name = "kelp",
    mixinStandardHelpOptions = true,
    versionProvider = Kelp.Version.class,
    description = "A Kafka-compatible broker whose data lives in SeaweedFS.",
    subcommands = {CommandLine.HelpCommand.class, VersionCommand.class})
public final class Kelp implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The {@code kelp} command with all its subcommands. */
  public static CommandLine commandLine() {
    return new CommandLine(new Kelp())
        .addSubcommand("serve", ServeCommand.commandLine())
        .addSubcommand("dump", new DumpCommand());
  }

  @Override
  public void run() {
    spec.commandLine().getOut().println("Kelp " + version());
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The version this build was made from, read from the jar's resources. */
  public static String version() {
    Properties p = new Properties();
    try (InputStream in = Kelp.class.getResourceAsStream("/kelp-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    return p.getProperty("version", "unknown");
  }

  /** Supplies {@code --version}. */
  public static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"Kelp " + version()};
    }
  }
}
