package io.kelp.seaweed;

/**
 * A filer's address as SeaweedFS writes server addresses: {@code host:port} when its gRPC port is
 * the HTTP port plus {@value #GRPC_PORT_OFFSET} (SeaweedFS's default), else {@code
 * host:port.grpcPort}, the form {@code weed} itself uses for a filer started with {@code
 * -filer.port.grpc}. An IPv6 host is written in brackets: {@code [::1]:8888}.
 *
 * @param host the filer's host name or address, without brackets
 * @param httpPort the filer's HTTP port
 * @param grpcPort the filer's gRPC port, the one Kelp talks to
 */
public record FilerAddress(String host, int httpPort, int grpcPort) {
  /** SeaweedFS's default distance of a server's gRPC port from its HTTP port. */
  public static final int GRPC_PORT_OFFSET = 10000;

  public FilerAddress {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("the filer address has no host");
    }
    checkPort(httpPort, "port");
    checkPort(grpcPort, "gRPC port");
  }

  /**
   * Parses {@code host:port} or {@code host:port.grpcPort}.
   *
   * @throws IllegalArgumentException saying what is wrong with {@code text}
   */
  public static FilerAddress parse(String text) {
    String s = text.trim();
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("'" + text + "' is not HOST:PORT or HOST:PORT.GRPC_PORT");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw new IllegalArgumentException(
          "'" + text + "': write an IPv6 filer address in brackets, as in [::1]:8888");
    }
    String ports = s.substring(colon + 1);
    int dot = ports.indexOf('.');
    int http = port(text, dot < 0 ? ports : ports.substring(0, dot));
    if (dot >= 0) {
      return new FilerAddress(host, http, port(text, ports.substring(dot + 1)));
    }
    if (http + GRPC_PORT_OFFSET > 65535) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "': the filer's gRPC port would be "
              + (http + GRPC_PORT_OFFSET)
              + "; give it as HOST:PORT.GRPC_PORT");
    }
    return new FilerAddress(host, http, http + GRPC_PORT_OFFSET);
  }

  private static int port(String text, String digits) {
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("'" + text + "' has a port that is not a number");
    }
    try {
      return Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' has a port outside 1-65535");
    }
  }

  private static void checkPort(int port, String what) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "the filer's " + what + " " + port + " is outside 1-65535");
    }
  }

  /** The address as written in settings and logs: the gRPC port is left out when it is default. */
  @Override
  public String toString() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return grpcPort == httpPort + GRPC_PORT_OFFSET
        ? h + ":" + httpPort
        : h + ":" + httpPort + "." + grpcPort;
  }
}
