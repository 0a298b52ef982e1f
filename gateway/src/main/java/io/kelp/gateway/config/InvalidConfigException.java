package io.kelp.gateway.config;

/** A config key or value Kelp does not accept; the message names the key, as Kafka's does. */
public final class InvalidConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  public InvalidConfigException(String message) {
    super(message);
  }
}
