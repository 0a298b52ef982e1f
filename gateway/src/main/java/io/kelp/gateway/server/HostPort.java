package io.kelp.gateway.server;

/** A network endpoint as written in settings: {@code host:port}, or {@code [v6-address]:port}. */
public record HostPort(String host, int port) {

  public HostPort {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("empty host");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is outside 0-65535");
    }
  }

  /**
   * Parses {@code host:port}; the port may be 0 (any free port) only where the caller allows it.
   */
  public static HostPort parse(String text) {
    String s = text.trim();
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("'" + text + "' is not HOST:PORT");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' has no numeric port");
    }
    return new HostPort(host, port);
  }

  @Override
  public String toString() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }
}
