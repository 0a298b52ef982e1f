package io.kelp.gateway.coordinator.classic;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Reads the topic names out of a consumer's subscription, the metadata a classic group member of
 * protocol type {@code consumer} sends in JoinGroup. Every version of the consumer protocol starts
 * the same way:
 *
 * <pre>
 * +---------+-------------+--------------------+-------+-----+---------------------------+
 * | version | topic count | topic 0: length    | UTF-8 | ... | user data, owned          |
 * | int16   | int32       | int16              | bytes |     | partitions... (not read)  |
 * +---------+-------------+--------------------+-------+-----+---------------------------+
 * </pre>
 */
final class ConsumerSubscription {
  private ConsumerSubscription() {}

  /** The subscribed topics, or null when the bytes are not a readable subscription. */
  static Set<String> topics(byte[] metadata) {
    if (metadata == null || metadata.length < 6) {
      return null;
    }
    try {
      ByteBuffer b = ByteBuffer.wrap(metadata);
      short version = b.getShort();
      if (version < 0) {
        return null;
      }
      int count = b.getInt();
      if (count < 0 || count > b.remaining() / 2) {
        return null;
      }
      Set<String> topics = new HashSet<>();
      for (int i = 0; i < count; i++) {
        short length = b.getShort();
        if (length < 0 || length > b.remaining()) {
          return null;
        }
        byte[] name = new byte[length];
        b.get(name);
        topics.add(new String(name, StandardCharsets.UTF_8));
      }
      return topics;
    } catch (BufferUnderflowException e) {
      return null;
    }
  }
}
