package io.kelp.compat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports of 127.0.0.1 for the processes and listeners the tests start.
 *
 * <p>A port is chosen from 10000-19999: below Linux's ephemeral range (32768 and up), where the
 * kernel picks the local ports of outgoing connections and of listeners bound to port 0, so no
 * client connection can take it between the choice and the bind. SeaweedFS's test processes use
 * 20000-22767 and their gRPC twins 30000-32767, so the two never meet. A port handed out once is
 * not handed out again in this JVM: a broker keeps its port across restarts.
 */
final class LocalPorts {
  private static final int LOW = 10000;
  private static final int HIGH = 20000;
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private LocalPorts() {}

  /** A port nothing listens on now and that this JVM has not handed out before. */
  static synchronized int free() throws IOException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    for (int attempt = 0; attempt < 10_000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOW, HIGH);
      if (HANDED_OUT.contains(port)) {
        continue;
      }
      try (ServerSocket probe = new ServerSocket(port, 1, loopback)) {
        HANDED_OUT.add(port);
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port in " + LOW + "-" + (HIGH - 1));
  }
}
