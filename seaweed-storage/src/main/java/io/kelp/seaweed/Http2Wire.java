package io.kelp.seaweed;

import io.grpc.Status;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The parts of HTTP/2 (RFC 9113) and HPACK (RFC 7541) that {@link BlockingGrpc} writes and reads:
 * frame types, flags and settings, the frame header, literal header fields, and gRPC's reading of
 * an HTTP status that came without a gRPC one.
 */
final class Http2Wire {
  private Http2Wire() {}

  static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  static final int DATA = 0;
  static final int HEADERS = 1;
  static final int RST_STREAM = 3;
  static final int SETTINGS = 4;
  static final int PUSH_PROMISE = 5;
  static final int PING = 6;
  static final int GOAWAY = 7;
  static final int WINDOW_UPDATE = 8;
  static final int CONTINUATION = 9;

  static final int END_STREAM = 0x1;
  static final int ACK = 0x1;
  static final int END_HEADERS = 0x4;
  static final int PADDED = 0x8;
  static final int PRIORITY = 0x20;

  static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
  static final int SETTINGS_ENABLE_PUSH = 0x2;
  static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
  static final int SETTINGS_MAX_FRAME_SIZE = 0x5;

  static Status httpStatus(String http) {
    // gRPC's mapping of HTTP statuses without a gRPC status
    Status.Code code =
        switch (http) {
          case "400" -> Status.Code.INTERNAL;
          case "401" -> Status.Code.UNAUTHENTICATED;
          case "403" -> Status.Code.PERMISSION_DENIED;
          case "404" -> Status.Code.UNIMPLEMENTED;
          case "429", "502", "503", "504" -> Status.Code.UNAVAILABLE;
          default -> Status.Code.UNKNOWN;
        };
    return Status.fromCode(code).withDescription("HTTP status " + http);
  }

  static void frame(
      ByteArrayOutputStream o, int type, int flags, int stream, byte[] b, int off, int len) {
    o.write(len >>> 16);
    o.write(len >>> 8);
    o.write(len);
    o.write(type);
    o.write(flags);
    o.write((stream >>> 24) & 0x7f);
    o.write(stream >>> 16);
    o.write(stream >>> 8);
    o.write(stream);
    o.write(b, off, len);
  }

  /** An HPACK literal header field without indexing, with a new name and no Huffman coding. */
  static void literal(ByteArrayOutputStream b, String name, String value) {
    b.write(0x00);
    string(b, name.getBytes(StandardCharsets.US_ASCII));
    string(b, value.getBytes(StandardCharsets.UTF_8));
  }

  private static void string(ByteArrayOutputStream b, byte[] s) {
    // a 7-bit prefix integer (RFC 7541, section 5.1), the H bit clear
    int n = s.length;
    if (n < 127) {
      b.write(n);
    } else {
      b.write(127);
      n -= 127;
      while (n >= 128) {
        b.write((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      b.write(n);
    }
    b.write(s, 0, s.length);
  }

  static void putSetting(byte[] b, int at, int key, int value) {
    b[at] = (byte) (key >>> 8);
    b[at + 1] = (byte) key;
    b[at + 2] = (byte) (value >>> 24);
    b[at + 3] = (byte) (value >>> 16);
    b[at + 4] = (byte) (value >>> 8);
    b[at + 5] = (byte) value;
  }

  static byte[] int31(int value) {
    return new byte[] {
      (byte) ((value >>> 24) & 0x7f), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value
    };
  }

  static int readInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24)
        | ((b[at + 1] & 0xff) << 16)
        | ((b[at + 2] & 0xff) << 8)
        | (b[at + 3] & 0xff);
  }
}
