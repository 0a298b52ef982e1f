package io.kelp.codec.wire;

/** The body of a Kafka request or response. */
public interface ApiMessage extends Message {
  short apiKey();

  short lowestVersion();

  short highestVersion();
}
