package io.kelp.seaweed;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FilerError;
import io.kelp.seaweed.filer.FilerProto.ObjectMutation;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionResponse;
import io.kelp.seaweed.filer.FilerProto.WriteCondition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The owner-epoch marker of a fenced directory ({@value #FILE}), as {@link SeaweedObjectStore}
 * writes and checks it: its content is the epoch, and its ETag the digest every fenced write of
 * that epoch requires. {@link #claim} records a new owner epoch.
 */
final class EpochMarker {
  static final String FILE = "owner.epoch";
  static final String ETAG_KEY = "Seaweed-X-Amz-ETag";

  private EpochMarker() {}

  /**
   * The epoch marker. Content: the epoch in decimal ASCII. ETag ({@value #ETAG_KEY}) and MD5
   * attribute: the MD5 of {@code "kelp owner epoch <epoch>"}, what fenced writes compare against.
   */
  static Entry entry(long epoch) {
    byte[] digest = md5(("kelp owner epoch " + epoch).getBytes(StandardCharsets.US_ASCII));
    long now = System.currentTimeMillis() / 1000;
    byte[] content = Long.toString(epoch).getBytes(StandardCharsets.US_ASCII);
    return Entry.newBuilder()
        .setName(FILE)
        .setContent(ByteString.copyFrom(content))
        .setAttributes(
            SeaweedObjectStore.newAttributes(now).toBuilder()
                .setFileSize(content.length)
                .setMd5(ByteString.copyFrom(digest)))
        .putExtended(ETAG_KEY, ByteString.copyFromUtf8(HexFormat.of().formatHex(digest)))
        .build();
  }

  static String tag(long epoch) {
    return HexFormat.of()
        .formatHex(md5(("kelp owner epoch " + epoch).getBytes(StandardCharsets.US_ASCII)));
  }

  static long recorded(Entry marker) {
    String text = marker.getContent().toStringUtf8().trim();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return Long.MIN_VALUE;
    }
  }

  static WriteCondition etagIs(String tag) {
    return WriteCondition.newBuilder()
        .addClauses(
            WriteCondition.Clause.newBuilder()
                .setKind(WriteCondition.Kind.IF_ETAG_MATCH)
                .addEtags(tag))
        .build();
  }

  /**
   * Records {@code epoch} as {@code directory}'s owner epoch unless a higher or equal one is
   * recorded already: a compare-and-set on the marker, retried while the filer is unreachable for
   * up to {@code retryFor}. Returns the epoch recorded afterwards.
   */
  static long claim(FilerClient filer, String directory, long epoch, Duration retryFor)
      throws IOException {
    String[] p = SeaweedObjectStore.split(FilerClient.join(directory, FILE));
    String marker = FilerClient.join(p[0], p[1]);
    long deadline = System.nanoTime() + retryFor.toNanos();
    long backoffMs = 20;
    while (true) {
      Optional<Entry> current = filer.lookup(p[0], p[1]);
      long recorded = current.map(EpochMarker::recorded).orElse(Long.MIN_VALUE);
      if (recorded >= epoch) {
        return recorded;
      }
      WriteCondition unchanged =
          current.isPresent()
              ? etagIs(tag(recorded))
              : WriteCondition.newBuilder()
                  .addClauses(
                      WriteCondition.Clause.newBuilder().setKind(WriteCondition.Kind.IF_NOT_EXISTS))
                  .build();
      ObjectTransactionRequest request =
          ObjectTransactionRequest.newBuilder()
              .setLockKey(marker)
              .setRouteKey(marker)
              .setCondition(unchanged)
              .addMutations(
                  ObjectMutation.newBuilder()
                      .setType(ObjectMutation.Type.PUT)
                      .setDirectory(p[0])
                      .setEntry(entry(epoch)))
              .build();
      ObjectTransactionResponse response;
      try {
        response = filer.transactOnce(request);
      } catch (StatusRuntimeException e) {
        backoffMs = filer.backOff("claim of " + directory, e, deadline, backoffMs);
        continue;
      }
      if (response.getErrorCode() == FilerError.PRECONDITION_FAILED) {
        continue; // another claim came first: compare again
      }
      if (!response.getError().isEmpty()) {
        throw new IOException(
            "claim of " + directory + " on filer " + filer.address() + ": " + response.getError());
      }
      return epoch;
    }
  }

  private static byte[] md5(byte[] bytes) {
    try {
      return MessageDigest.getInstance("MD5").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK always has MD5", e);
    }
  }
}
