package io.kelp.seaweed;

import com.google.protobuf.ByteString;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.WriteCondition;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The owner-epoch marker of a fenced directory ({@value #FILE}), as {@link SeaweedObjectStore}
 * writes and checks it: its content is the epoch, and its ETag the digest every fenced write of
 * that epoch requires.
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

  private static byte[] md5(byte[] bytes) {
    try {
      return MessageDigest.getInstance("MD5").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK always has MD5", e);
    }
  }
}
