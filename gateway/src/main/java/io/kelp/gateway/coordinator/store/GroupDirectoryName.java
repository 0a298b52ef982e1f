package io.kelp.gateway.coordinator.store;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The name of a group's directory under {@code /kelp/groups/}. Group ids are any string a client
 * sends (empty, {@code ..}, {@code a/b}, unicode, tens of KiB long); directory names must be safe
 * in a filer path, bounded in length, and distinct for distinct ids.
 *
 * <ul>
 *   <li>An id whose UTF-8 bytes are all in {@code [A-Za-z0-9_-]} is its own name.
 *   <li>Other bytes become {@code %XX} (upper-case hex), so {@code orders.app} is {@code
 *       orders%2Eapp}. The dot is escaped as well because names with dots are reserved: it keeps
 *       {@code .} and {@code ..} out, keeps names apart from the local store's temporary files
 *       ({@code *.tmp-*}, which listings skip), and leaves room for the hashed form.
 *   <li>The empty id, and ids whose escaped form is longer than {@value #MAX_ESCAPED_LENGTH}
 *       characters, are named {@code h.} followed by the hex SHA-256 of their UTF-8 bytes. Their
 *       real id is read back from the group's objects, which carry it.
 * </ul>
 *
 * <p>Escaped names never contain a dot and hashed names always do, so the two forms cannot meet.
 * Names are case-sensitive, as on SeaweedFS and Linux filesystems.
 */
public final class GroupDirectoryName {
  /** Escaped names up to this length stay readable; longer ones are hashed. */
  static final int MAX_ESCAPED_LENGTH = 160;

  static final String HASHED_PREFIX = "h.";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private GroupDirectoryName() {}

  /**
   * The directory name of {@code groupId}.
   *
   * @throws IllegalArgumentException if the id is not valid UTF-16 (a lone surrogate), which no id
   *     decoded from the Kafka wire can be; mapping it lossily could merge two groups
   */
  public static String of(String groupId) {
    byte[] utf8 = utf8(groupId);
    StringBuilder name = new StringBuilder(Math.min(utf8.length * 3, MAX_ESCAPED_LENGTH + 3));
    for (byte b : utf8) {
      if (name.length() > MAX_ESCAPED_LENGTH) {
        break;
      }
      int c = b & 0xFF;
      if (isPlain(c)) {
        name.append((char) c);
      } else {
        name.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
      }
    }
    if (utf8.length == 0 || name.length() > MAX_ESCAPED_LENGTH) {
      return HASHED_PREFIX + sha256Hex(utf8);
    }
    return name.toString();
  }

  /**
   * The group id an escaped name stands for, or null for a hashed name or a name this class does
   * not make.
   */
  static String idOf(String name) {
    if (name.isEmpty() || name.indexOf('.') >= 0) {
      return null;
    }
    byte[] bytes = new byte[name.length()];
    int n = 0;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '%' && i + 2 < name.length()) {
        int hi = Character.digit(name.charAt(i + 1), 16);
        int lo = Character.digit(name.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          return null;
        }
        bytes[n++] = (byte) (hi << 4 | lo);
        i += 2;
      } else if (c < 0x80 && isPlain(c)) {
        bytes[n++] = (byte) c;
      } else {
        return null;
      }
    }
    String id = new String(bytes, 0, n, StandardCharsets.UTF_8);
    return name.equals(of(id)) ? id : null;
  }

  /** Whether {@code name} is in the hashed form, whose id only the group's objects tell. */
  static boolean isHashed(String name) {
    return name.startsWith(HASHED_PREFIX);
  }

  /**
   * The UTF-8 bytes of {@code s}, refusing strings that have none (lone surrogates) rather than
   * replacing characters, since a replacement could give two ids the same bytes.
   */
  static byte[] utf8(String s) {
    CharsetEncoder encoder =
        StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      ByteBuffer bytes = encoder.encode(CharBuffer.wrap(s));
      byte[] out = new byte[bytes.remaining()];
      bytes.get(out);
      return out;
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("group id is not valid Unicode text", e);
    }
  }

  private static boolean isPlain(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  private static String sha256Hex(byte[] bytes) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    StringBuilder hex = new StringBuilder(digest.length * 2);
    for (byte b : digest) {
      hex.append(Character.toLowerCase(HEX[(b >>> 4) & 0xF]))
          .append(Character.toLowerCase(HEX[b & 0xF]));
    }
    return hex.toString();
  }
}
