package io.kelp.codec.wire;

import java.util.List;

/**
 * A Kafka protocol struct that reads and writes itself at a given version. Implementations are
 * generated from the message definitions.
 */
public interface Message {
  /**
   * Replaces this struct's content with what {@code reader} holds at {@code version}. Malformed
   * input never throws: the reader's error is set and reading stops early; check {@link
   * WireReader#ok()} afterwards. Records fields become slices of the reader's buffer, so they stay
   * valid only while that buffer is.
   */
  void read(WireReader reader, short version);

  /**
   * Writes this struct at {@code version}. Fields the version does not have are left out. Throws
   * {@link IllegalStateException} if a field that the version requires is null: that is a bug in
   * the caller, not bad input.
   */
  void write(WireWriter writer, short version);

  /**
   * The exact number of bytes {@link #write} produces at {@code version}, so callers can size
   * buffers once instead of growing them.
   */
  int size(short version);

  /** Tagged fields this codec does not know, kept so they can be written back unchanged. */
  List<RawTaggedField> unknownTaggedFields();
}
