package io.kelp.gateway.cli;

import picocli.CommandLine.Command;

/** {@code kelp version}: prints the version and exits. */
@Command(name = "version", description = "Print Kelp's version.")
final class VersionCommand implements Runnable {
  @Override
  public void run() {
    System.out.println("Kelp " + Kelp.version());
  }
}
