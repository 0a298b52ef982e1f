package io.kelp.gateway.coordinator.consumer;

/**
 * A consumer group request the coordinator refuses, with the Kafka error code and message the
 * client gets. Thrown before the group changes, so a refused request leaves no trace.
 */
public final class GroupError extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final short code;

  public GroupError(short code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  public short code() {
    return code;
  }
}
