package io.kelp.codec.wire;

/**
 * The header in front of every response body: v0 is the correlation id; v1 adds a tagged-field
 * section (always empty here). ApiVersions responses always use v0 (see {@link
 * ApiMessageType#responseHeaderVersion}).
 */
public final class ResponseHeader {
  private ResponseHeader() {}

  public static void write(WireWriter writer, int correlationId, short headerVersion) {
    writer.writeInt32(correlationId);
    if (headerVersion >= 1) {
      writer.writeUnsignedVarint(0);
    }
  }

  /** Reads a response header and returns its correlation id; tagged fields are skipped. */
  public static int read(WireReader reader, short headerVersion) {
    int correlationId = reader.readInt32();
    if (headerVersion >= 1) {
      int count = reader.readUnsignedVarint();
      for (int i = 0; i < count && reader.ok(); i++) {
        reader.readUnsignedVarint();
        int size = reader.readUnsignedVarint();
        int end = reader.beginTaggedField(size);
        reader.buffer().readerIndex(reader.ok() ? end : reader.buffer().readerIndex());
      }
    }
    return correlationId;
  }
}
