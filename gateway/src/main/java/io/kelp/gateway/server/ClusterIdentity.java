package io.kelp.gateway.server;

import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;

/**
 * What identifies the cluster and this broker's tenure, kept in the store so that both survive
 * restarts:
 *
 * <ul>
 *   <li>{@value #CLUSTER_ID_PATH}: the cluster id as text, written once on first start, in Kafka's
 *       form (a random UUID in URL-safe base64 without padding, 22 characters).
 *   <li>{@code /kelp/brokers/<id>/epoch}: the broker epoch as decimal text, one higher on every
 *       start. The broker claims its partitions with it, so a stale process is fenced, and it
 *       becomes the partitions' leader epoch.
 * </ul>
 */
public final class ClusterIdentity {
  public static final String CLUSTER_ID_PATH = "/kelp/cluster-id";

  private ClusterIdentity() {}

  /** The cluster id, created on first use. */
  public static String clusterId(ObjectStore store) throws IOException {
    Optional<String> existing = readText(store, CLUSTER_ID_PATH);
    if (existing.isPresent() && !existing.get().isEmpty()) {
      return existing.get();
    }
    UUID u = UUID.randomUUID();
    ByteBuffer bytes = ByteBuffer.allocate(16);
    bytes.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
    String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    writeText(store, CLUSTER_ID_PATH, id);
    return id;
  }

  /** Records and returns the next epoch of broker {@code brokerId}. */
  public static long nextBrokerEpoch(ObjectStore store, int brokerId) throws IOException {
    String path = "/kelp/brokers/" + brokerId + "/epoch";
    long epoch = 0;
    Optional<String> text = readText(store, path);
    if (text.isPresent()) {
      try {
        epoch = Long.parseLong(text.get()) + 1;
      } catch (NumberFormatException e) {
        throw new IOException("corrupt broker epoch in " + path + ": '" + text.get() + "'", e);
      }
    }
    if (epoch > Integer.MAX_VALUE) {
      throw new IOException("broker epoch in " + path + " is past the largest leader epoch");
    }
    writeText(store, path, Long.toString(epoch));
    return epoch;
  }

  private static Optional<String> readText(ObjectStore store, String path) throws IOException {
    var stat = store.stat(path);
    if (stat.isEmpty()) {
      return Optional.empty();
    }
    ByteBuf data = store.read(path, 0, (int) stat.get().size());
    try {
      return Optional.of(data.toString(StandardCharsets.UTF_8).trim());
    } finally {
      data.release();
    }
  }

  private static void writeText(ObjectStore store, String path, String text) throws IOException {
    store.put(path, Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)), null);
  }
}
