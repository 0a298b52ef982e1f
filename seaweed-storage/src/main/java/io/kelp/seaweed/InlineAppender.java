package io.kelp.seaweed;

import com.google.protobuf.ByteString;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.WriteCondition;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Small unfenced appends kept inside the filer entry (its content) while the object has no chunks
 * and stays within {@link SeaweedObjectStore#INLINE_LIMIT}: one filer transaction, no upload. The
 * broker's own appends are all fenced now (consumer group logs were written this way before they
 * were); objects written so are read as any other.
 *
 * <p>Every inline append stamps the MD5 of the new content on the entry, which makes it the entry's
 * ETag, and the transaction's condition is "the ETag is still the one read" (or "the entry is still
 * absent"): a concurrent writer's append makes ours re-read instead of overwriting it. An entry
 * whose content carries no such stamp (written by a put, or by another tool) is left to the chunk
 * path, as is one that has chunks. Each append also adds a random token to a short list in the
 * entry ({@value #TOKENS_KEY}, the last {@value #TOKENS_KEPT}): after an attempt whose outcome is
 * unknown, finding its token in the entry read back shows it landed, so a retry never adds the
 * bytes twice.
 */
final class InlineAppender {
  /** The extended attribute that lists the tokens of the latest inline appends. */
  static final String TOKENS_KEY = "kelp-inline-appends";

  static final int TOKENS_KEPT = 64;
  private static final int TOKEN_CHARS = 16;

  private final FilerClient filer;
  private final EntryCache entries;
  private final Duration retryFor;

  InlineAppender(FilerClient filer, EntryCache entries, Duration retryFor) {
    this.filer = filer;
    this.entries = entries;
    this.retryFor = retryFor;
  }

  /**
   * Appends {@code data} to the entry's content. Returns false, having written nothing, when the
   * object is not one to append to inline (it has chunks, unstamped content, or would grow past the
   * limit): the caller then appends with chunks.
   */
  boolean append(String path, String[] p, ByteBuf data) throws IOException {
    if (data.readableBytes() > SeaweedObjectStore.INLINE_LIMIT) {
      return false;
    }
    byte[] bytes = ByteBufUtil.getBytes(data);
    String token = newToken();
    AppendAttempts attempts =
        new AppendAttempts(filer, filer::transactOnce, entries, path, retryFor);
    while (true) {
      Optional<Entry> current = attempts.current();
      if (current.isPresent()) {
        Entry e = current.get();
        if (attempts.mayHoldAnEarlierAttempt() && tokens(e).contains(token)) {
          entries.put(path, e);
          return true; // an earlier attempt landed before its answer was lost
        }
        if (!inline(e) || e.getContent().size() + bytes.length > SeaweedObjectStore.INLINE_LIMIT) {
          return false;
        }
      }
      Entry next = appended(p[1], current, bytes, token);
      ObjectTransactionRequest request =
          FilerTransactions.transaction(
              path,
              current.isPresent() ? sameContent(current.get()) : absent(),
              FilerTransactions.put(p[0], next));
      if (attempts.attempt(request, next, null)) {
        return true;
      }
    }
  }

  /** Whether appends to {@code e} may stay inline: no chunks, and content stamped by them. */
  static boolean inline(Entry e) {
    return e.getChunksCount() == 0 && !e.getAttributes().getMd5().isEmpty();
  }

  /** "The entry's content is still the one read": its ETag is the MD5 stamped with it. */
  static WriteCondition sameContent(Entry e) {
    return EpochMarker.etagIs(HexFormat.of().formatHex(e.getAttributes().getMd5().toByteArray()));
  }

  private static WriteCondition absent() {
    return WriteCondition.newBuilder()
        .addClauses(WriteCondition.Clause.newBuilder().setKind(WriteCondition.Kind.IF_NOT_EXISTS))
        .build();
  }

  private static Entry appended(String name, Optional<Entry> current, byte[] bytes, String token) {
    long now = System.currentTimeMillis() / 1000;
    Entry.Builder next =
        current.isPresent()
            ? current.get().toBuilder()
            : Entry.newBuilder().setName(name).setAttributes(Entries.newAttributes(now));
    ByteString content = next.getContent().concat(ByteString.copyFrom(bytes));
    String tokens = tokens(next.getExtendedMap().get(TOKENS_KEY)) + token;
    int keep = TOKENS_KEPT * TOKEN_CHARS;
    if (tokens.length() > keep) {
      tokens = tokens.substring(tokens.length() - keep);
    }
    return next.setContent(content)
        .setAttributes(
            next.getAttributes().toBuilder()
                .setFileSize(content.size())
                .setMtime(now)
                .setMd5(ByteString.copyFrom(md5(content))))
        .putExtended(TOKENS_KEY, ByteString.copyFrom(tokens, StandardCharsets.US_ASCII))
        .build();
  }

  /** The tokens of the entry's latest inline appends, concatenated. */
  private static TokenList tokens(Entry e) {
    return new TokenList(tokens(e.getExtendedMap().get(TOKENS_KEY)));
  }

  private static String tokens(ByteString value) {
    return value == null ? "" : value.toString(StandardCharsets.US_ASCII);
  }

  private record TokenList(String concatenated) {
    boolean contains(String token) {
      for (int i = 0; i + TOKEN_CHARS <= concatenated.length(); i += TOKEN_CHARS) {
        if (concatenated.startsWith(token, i)) {
          return true;
        }
      }
      return false;
    }
  }

  private static String newToken() {
    return HexFormat.of().withLowerCase().toHexDigits(ThreadLocalRandom.current().nextLong());
  }

  private static byte[] md5(ByteString content) {
    try {
      MessageDigest digest = MessageDigest.getInstance("MD5");
      digest.update(content.asReadOnlyByteBuffer());
      return digest.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK always has MD5", e);
    }
  }
}
