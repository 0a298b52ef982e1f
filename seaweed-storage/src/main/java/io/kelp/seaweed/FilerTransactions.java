package io.kelp.seaweed;

import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.ObjectMutation;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.WriteCondition;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The filer transactions the store sends, and the conditions that guard them: fenced writes on the
 * directory's epoch marker, unfenced appends on the object's chunks (see {@link
 * SeaweedObjectStore}).
 */
final class FilerTransactions {
  /** Fence conditions by epoch and writer: a digest per claim, not per write. */
  private static final ConcurrentHashMap<String, WriteCondition> OWNED_WITH =
      new ConcurrentHashMap<>();

  private FilerTransactions() {}

  /** The mutation that stores {@code entry} in {@code directory}, replacing one of its name. */
  static ObjectMutation put(String directory, Entry entry) {
    return ObjectMutation.newBuilder()
        .setType(ObjectMutation.Type.PUT)
        .setDirectory(directory)
        .setEntry(entry)
        .build();
  }

  /**
   * A transaction holding one mutation. Fenced writes lock the directory's epoch marker and require
   * its ETag to be the one {@code writer} recorded with the fence's epoch; unfenced ones lock the
   * object itself.
   */
  static ObjectTransactionRequest transaction(
      String path, Fence fence, String writer, ObjectMutation mutation) {
    ObjectTransactionRequest.Builder request = ObjectTransactionRequest.newBuilder();
    if (fence == null) {
      request.setLockKey(path).setRouteKey(path);
    } else {
      String marker = FilerClient.join(fence.directory(), EpochMarker.FILE);
      request
          .setLockKey(marker)
          .setRouteKey(marker)
          .setConditionKey(marker)
          .setCondition(ownedWith(fence.epoch(), writer));
    }
    return request.addMutations(mutation).build();
  }

  /** "The directory's epoch marker holds {@code epoch}, claimed by {@code writer}". */
  private static WriteCondition ownedWith(long epoch, String writer) {
    String key = epoch + " " + writer;
    WriteCondition condition = OWNED_WITH.get(key);
    if (condition == null) {
      if (OWNED_WITH.size() >= 1024) {
        OWNED_WITH.clear();
      }
      condition = EpochMarker.etagIs(EpochMarker.tag(epoch, writer));
      OWNED_WITH.put(key, condition);
    }
    return condition;
  }

  /**
   * An unfenced transaction holding one mutation, which applies only if {@code condition} holds.
   */
  static ObjectTransactionRequest transaction(
      String path, WriteCondition condition, ObjectMutation mutation) {
    return ObjectTransactionRequest.newBuilder()
        .setLockKey(path)
        .setRouteKey(path)
        .setCondition(condition)
        .addMutations(mutation)
        .build();
  }

  static FencedException fenced(String path, Fence fence) {
    return new FencedException(
        "write of "
            + path
            + " refused: "
            + (fence == null ? "no fence" : fence.directory() + " epoch " + fence.epoch())
            + " is no longer the owner epoch");
  }

  /** "The entry still has exactly these chunks" (an absent entry has none). */
  static WriteCondition chunksEqual(Optional<Entry> current) {
    WriteCondition.Clause.Builder clause =
        WriteCondition.Clause.newBuilder().setKind(WriteCondition.Kind.IF_CHUNKS_EQUAL);
    current.ifPresent(e -> e.getChunksList().forEach(c -> clause.addFids(c.getFileId())));
    return WriteCondition.newBuilder().addClauses(clause).build();
  }
}
