package io.kelp.seaweed;

import com.google.protobuf.ByteString;
import io.kelp.engine.store.FencedException;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FilerError;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionResponse;
import io.kelp.seaweed.filer.FilerProto.WriteCondition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The owner-epoch marker of a fenced directory ({@value #FILE}), as {@link SeaweedObjectStore}
 * writes and checks it: its content is the epoch and the id of the writer that claimed it ({@code
 * "<epoch> <writer>"}), and its ETag the digest of both, which every fenced write of that epoch and
 * writer requires. {@link #claim} records a new owner epoch. A marker of an older format holds the
 * epoch alone; it is read as claimed by an unknown writer.
 */
final class EpochMarker {
  static final String FILE = "owner.epoch";
  static final String ETAG_KEY = "Seaweed-X-Amz-ETag";

  private EpochMarker() {}

  /** A new writer id: 16 random hex digits. */
  static String newWriter() {
    return HexFormat.of().toHexDigits(new SecureRandom().nextLong());
  }

  /**
   * The epoch marker. Content: {@code "<epoch> <writer>"} in ASCII. ETag ({@value #ETAG_KEY}) and
   * MD5 attribute: {@link #tag}, what fenced writes compare against.
   */
  static Entry entry(long epoch, String writer) {
    String tag = tag(epoch, writer);
    long now = System.currentTimeMillis() / 1000;
    byte[] content = (epoch + " " + writer).getBytes(StandardCharsets.US_ASCII);
    return Entry.newBuilder()
        .setName(FILE)
        .setContent(ByteString.copyFrom(content))
        .setAttributes(
            Entries.newAttributes(now).toBuilder()
                .setFileSize(content.length)
                .setMd5(ByteString.copyFrom(HexFormat.of().parseHex(tag))))
        .putExtended(ETAG_KEY, ByteString.copyFromUtf8(tag))
        .build();
  }

  /** The hex MD5 of {@code "kelp owner epoch <epoch> <writer>"}. */
  static String tag(long epoch, String writer) {
    return HexFormat.of()
        .formatHex(
            md5(("kelp owner epoch " + epoch + " " + writer).getBytes(StandardCharsets.US_ASCII)));
  }

  /** The epoch a marker records, or Long.MIN_VALUE if it holds none. */
  static long recorded(Entry marker) {
    String[] fields = marker.getContent().toStringUtf8().trim().split(" ", 2);
    try {
      return Long.parseLong(fields[0]);
    } catch (NumberFormatException e) {
      return Long.MIN_VALUE;
    }
  }

  /** The writer that claimed a marker, or "" for a marker without one (an older format). */
  static String writer(Entry marker) {
    String[] fields = marker.getContent().toStringUtf8().trim().split(" ", 2);
    return fields.length == 2 ? fields[1] : "";
  }

  /** The marker's ETag as the filer compares it. */
  private static String etag(Entry marker) {
    ByteString etag = marker.getExtendedMap().get(ETAG_KEY);
    return etag != null
        ? etag.toStringUtf8()
        : HexFormat.of().formatHex(marker.getAttributes().getMd5().toByteArray());
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
   * Records {@code epoch}, claimed by {@code writer}, as {@code directory}'s owner epoch unless a
   * higher one is recorded already: a compare-and-set on the marker, retried while the filer is
   * unreachable. Returns the epoch recorded afterwards.
   *
   * @throws FencedException if {@code epoch} is recorded already, by another writer
   */
  static long claim(FilerClient filer, String directory, long epoch, String writer)
      throws IOException {
    String[] p = Entries.split(FilerClient.join(directory, FILE));
    String marker = FilerClient.join(p[0], p[1]);
    while (true) {
      Optional<Entry> current = filer.lookup(p[0], p[1]);
      long recorded = current.map(EpochMarker::recorded).orElse(Long.MIN_VALUE);
      if (recorded > epoch || (recorded == epoch && current.isEmpty())) {
        return recorded; // higher, or nothing recorded and nothing to record (Long.MIN_VALUE)
      }
      if (recorded == epoch) {
        String holder = writer(current.get());
        if (holder.equals(writer)) {
          return recorded;
        }
        throw new FencedException(
            directory
                + " is claimed with epoch "
                + epoch
                + " by another writer ("
                + (holder.isEmpty() ? "unknown" : holder)
                + "), not this one ("
                + writer
                + "): is another Kelp broker with the same epoch using this filer and namespace?");
      }
      WriteCondition unchanged =
          current.isPresent()
              ? etagIs(etag(current.get()))
              : WriteCondition.newBuilder()
                  .addClauses(
                      WriteCondition.Clause.newBuilder().setKind(WriteCondition.Kind.IF_NOT_EXISTS))
                  .build();
      ObjectTransactionRequest request =
          ObjectTransactionRequest.newBuilder()
              .setLockKey(marker)
              .setRouteKey(marker)
              .setCondition(unchanged)
              .addMutations(FilerTransactions.put(p[0], entry(epoch, writer)))
              .build();
      ObjectTransactionResponse response = filer.transact("claim of " + directory, request);
      if (response.getErrorCode() == FilerError.PRECONDITION_FAILED) {
        continue; // another claim came first, or a resent one of ours landed: compare again
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
