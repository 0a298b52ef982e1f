package io.kelp.engine.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The metadata of one partition log that its segments cannot tell: the log start offset and the
 * leader-epoch history. Kept as {@value #FILE} in the partition directory, written whole (one put)
 * before anything that depends on it happens, as UTF-8 JSON:
 *
 * <pre>
 * {
 *   "version": 1,
 *   "logStartOffset": 1200,           // first offset a consumer may read; DeleteRecords and
 *                                     // retention move it, segments below it are deleted after
 *   "leaderEpochs": [                 // oldest first; epoch -> first offset written in it
 *     {"epoch": 1, "startOffset": 0},
 *     {"epoch": 4, "startOffset": 1377}
 *   ]
 * }
 * </pre>
 *
 * Immutable; changes return a new instance.
 */
public record PartitionMeta(long logStartOffset, List<EpochEntry> leaderEpochs) {
  public static final String FILE = "partition.meta";
  private static final int VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A leader epoch and the first offset appended in it. */
  public record EpochEntry(int epoch, long startOffset) {}

  public PartitionMeta {
    leaderEpochs = List.copyOf(leaderEpochs);
  }

  public static PartitionMeta empty() {
    return new PartitionMeta(0, List.of());
  }

  public PartitionMeta withLogStartOffset(long offset) {
    return new PartitionMeta(offset, leaderEpochs);
  }

  /**
   * This history with {@code epoch} starting at {@code startOffset}, or this one unchanged if it is
   * already the latest epoch. As in Kafka, entries with an epoch or start offset at or past the new
   * one are dropped first, so the history stays monotonic.
   */
  public PartitionMeta withEpoch(int epoch, long startOffset) {
    if (!leaderEpochs.isEmpty()) {
      EpochEntry last = leaderEpochs.get(leaderEpochs.size() - 1);
      if (last.epoch() == epoch && last.startOffset() <= startOffset) {
        return this;
      }
    }
    List<EpochEntry> kept = new ArrayList<>();
    for (EpochEntry e : leaderEpochs) {
      if (e.epoch() < epoch && e.startOffset() < startOffset) {
        kept.add(e);
      }
    }
    kept.add(new EpochEntry(epoch, startOffset));
    return new PartitionMeta(logStartOffset, kept);
  }

  /**
   * The answer to OffsetForLeaderEpoch, as Kafka computes it: for the latest epoch the log end
   * offset; otherwise the largest known epoch at or below the requested one, ending where the next
   * higher epoch starts; the requested epoch itself if it is below every known one.
   */
  public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
    if (requestedEpoch < 0 || leaderEpochs.isEmpty()) {
      return EpochEndOffset.UNKNOWN;
    }
    EpochEntry latest = leaderEpochs.get(leaderEpochs.size() - 1);
    if (latest.epoch() == requestedEpoch) {
      return new EpochEndOffset(requestedEpoch, logEndOffset);
    }
    EpochEntry floor = null;
    EpochEntry higher = null;
    for (EpochEntry e : leaderEpochs) {
      if (e.epoch() <= requestedEpoch) {
        floor = e;
      } else if (higher == null) {
        higher = e;
      }
    }
    if (higher == null) {
      return EpochEndOffset.UNKNOWN;
    }
    if (floor == null) {
      return new EpochEndOffset(requestedEpoch, higher.startOffset());
    }
    return new EpochEndOffset(floor.epoch(), higher.startOffset());
  }

  /** Reads the metadata of the partition in {@code directory}, if it has any. */
  public static Optional<PartitionMeta> read(ObjectStore store, String directory)
      throws IOException {
    String path = directory + "/" + FILE;
    Optional<ObjectInfo> stat = store.stat(path);
    if (stat.isEmpty()) {
      return Optional.empty();
    }
    ByteBuf data = store.read(path, 0, (int) stat.get().size());
    try {
      return Optional.of(parse(data, path));
    } finally {
      data.release();
    }
  }

  static PartitionMeta parse(ByteBuf data, String path) throws IOException {
    JsonNode root;
    try {
      root = JSON.readTree(new io.netty.buffer.ByteBufInputStream(data.duplicate()));
    } catch (JsonProcessingException e) {
      // The original message: the full one adds a second line about the source.
      throw new IOException(
          "unreadable partition metadata " + path + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IOException("unreadable partition metadata " + path + ": " + e.getMessage(), e);
    }
    if (root == null || !root.path("logStartOffset").canConvertToLong()) {
      throw new IOException("partition metadata " + path + " has no logStartOffset");
    }
    int version = root.path("version").asInt(-1);
    if (version != VERSION) {
      throw new IOException("partition metadata " + path + " has unsupported version " + version);
    }
    List<EpochEntry> epochs = new ArrayList<>();
    for (JsonNode e : root.path("leaderEpochs")) {
      epochs.add(new EpochEntry(e.path("epoch").asInt(), e.path("startOffset").asLong()));
    }
    return new PartitionMeta(root.path("logStartOffset").asLong(), epochs);
  }

  /** Writes this metadata whole, under the partition's fence. */
  public void write(ObjectStore store, String directory, Fence fence) throws IOException {
    store.put(directory + "/" + FILE, Unpooled.wrappedBuffer(toJson()), fence);
  }

  byte[] toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", VERSION);
    root.put("logStartOffset", logStartOffset);
    ArrayNode epochs = root.putArray("leaderEpochs");
    for (EpochEntry e : leaderEpochs) {
      epochs.addObject().put("epoch", e.epoch()).put("startOffset", e.startOffset());
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode partition metadata", e);
    }
  }
}
