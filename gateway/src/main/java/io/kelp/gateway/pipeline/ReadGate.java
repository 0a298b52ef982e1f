package io.kelp.gateway.pipeline;

import io.netty.channel.Channel;

/**
 * Stops reading a connection while any reason to hold it back holds: too many requests or bytes in
 * flight on it, a socket the client is not draining, or the engine over its memory budget. Reading
 * resumes when the last reason clears. Used on the connection's event loop only.
 */
final class ReadGate {
  static final int IN_FLIGHT = 1;
  static final int UNWRITABLE = 2;
  static final int MEMORY = 4;

  private final Channel channel;
  private int reasons;

  ReadGate(Channel channel) {
    this.channel = channel;
  }

  void set(int reason, boolean holds) {
    boolean wasOpen = reasons == 0;
    reasons = holds ? reasons | reason : reasons & ~reason;
    boolean open = reasons == 0;
    if (open != wasOpen) {
      channel.config().setAutoRead(open);
    }
  }

  boolean holds(int reason) {
    return (reasons & reason) != 0;
  }
}
