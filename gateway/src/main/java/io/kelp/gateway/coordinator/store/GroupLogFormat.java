package io.kelp.gateway.coordinator.store;

import io.kelp.engine.TopicPartition;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The bytes of a group's objects. Log objects ({@code log.<generation>.<sequence>}) are a sequence
 * of frames, one per write, appended whole; a snapshot ({@code snapshot.<generation>}) is exactly
 * one frame holding the group's whole state. All integers are big-endian.
 *
 * <pre>
 * Frame
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     Payload Length (int32)                    |
 *  +---------------------------------------------------------------+
 *  |               CRC32C of the payload bytes (int32)             |
 *  +---------------+-----------------------------------------------+
 *  |  Version = 1  |  Records, back to back, to the end of the    ...
 *  +---------------+  payload                                      |
 *  ...                                                             |
 *  +---------------------------------------------------------------+
 *
 * Group id record: the first record of every log object and of a snapshot
 *  +---------------+-----------------------------------------------+
 *  |   Type = 1    |           Id Length (int32)                   |
 *  +---------------+-----------------------------------------------+
 *  |                          Id (UTF-8)                         ...
 *  +---------------------------------------------------------------+
 *
 * Offset commit record
 *  +---------------+-------------------------------+---------------+
 *  |   Type = 2    |    Topic Length (int16)       |  Topic (UTF-8)...
 *  +---------------+-------------------------------+---------------+
 *  |                        Partition (int32)                      |
 *  +---------------------------------------------------------------+
 *  |                         Offset (int64)                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |              Leader Epoch (int32, -1: not given)              |
 *  +---------------------------------------------------------------+
 *  |                 Commit Timestamp (int64, ms)                  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |            Expire Timestamp (int64, ms, -1: none)             |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |            Metadata Length (int32, -1: null)                  |
 *  +---------------------------------------------------------------+
 *  |                       Metadata (UTF-8)                      ...
 *  +---------------------------------------------------------------+
 *
 * Offset deletion record
 *  +---------------+-------------------------------+---------------+
 *  |   Type = 3    |    Topic Length (int16)       |  Topic (UTF-8)...
 *  +---------------+-------------------------------+---------------+
 *  |                        Partition (int32)                      |
 *  +---------------------------------------------------------------+
 *
 * Group metadata record: the membership state, opaque to the store
 *  +---------------+-----------------------------------------------+
 *  |   Type = 4    |        Length (int32, -1: no state)           |
 *  +---------------+-----------------------------------------------+
 *  |                            Bytes                            ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Record fields are packed with no padding; the 32-bit rows show their order, not alignment.
 *
 * <p>A frame's records are applied in order, all or none: a frame whose length runs past the end of
 * the object, whose CRC does not match, or whose records do not parse is a torn or corrupt write
 * and nothing from it, or after it in the same object, is applied. One frame per write is what
 * makes a batch of commits atomic.
 */
final class GroupLogFormat {
  static final int FRAME_HEADER_LENGTH = 8;
  static final byte VERSION = 1;
  static final byte GROUP_ID = 1;
  static final byte OFFSET_COMMIT = 2;
  static final byte OFFSET_DELETION = 3;
  static final byte METADATA = 4;

  private GroupLogFormat() {}

  /** One decoded record. */
  sealed interface Record {}

  record GroupIdRecord(String groupId) implements Record {}

  record CommitRecord(TopicPartition partition, OffsetAndMetadata offset) implements Record {}

  record DeletionRecord(TopicPartition partition) implements Record {}

  /** {@code metadata} is null when the group's state was cleared. */
  record MetadataRecord(byte[] metadata) implements Record {}

  /** Builds one frame. The caller owns the finished buffer and releases it. */
  static final class FrameWriter {
    private final ByteBuf buf;

    FrameWriter(int sizeHint) {
      buf = Unpooled.buffer(Math.max(64, sizeHint));
      buf.writeInt(0).writeInt(0).writeByte(VERSION);
    }

    FrameWriter groupId(String groupId) {
      byte[] id = GroupDirectoryName.utf8(groupId);
      buf.writeByte(GROUP_ID).writeInt(id.length).writeBytes(id);
      return this;
    }

    FrameWriter commits(Map<TopicPartition, OffsetAndMetadata> commits) {
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : commits.entrySet()) {
        OffsetAndMetadata o = e.getValue();
        buf.writeByte(OFFSET_COMMIT);
        writePartition(e.getKey());
        buf.writeLong(o.offset())
            .writeInt(o.leaderEpoch())
            .writeLong(o.commitTimestampMs())
            .writeLong(o.expireTimestampMs());
        if (o.metadata() == null) {
          buf.writeInt(-1);
        } else {
          byte[] m = o.metadata().getBytes(StandardCharsets.UTF_8);
          buf.writeInt(m.length).writeBytes(m);
        }
      }
      return this;
    }

    FrameWriter deletions(Collection<TopicPartition> deletions) {
      for (TopicPartition tp : deletions) {
        buf.writeByte(OFFSET_DELETION);
        writePartition(tp);
      }
      return this;
    }

    FrameWriter metadata(byte[] metadata) {
      buf.writeByte(METADATA);
      if (metadata == null) {
        buf.writeInt(-1);
      } else {
        buf.writeInt(metadata.length).writeBytes(metadata);
      }
      return this;
    }

    private void writePartition(TopicPartition tp) {
      byte[] topic = tp.topic().getBytes(StandardCharsets.UTF_8);
      if (topic.length > Short.MAX_VALUE) {
        throw new IllegalArgumentException(
            "topic name of " + topic.length + " bytes is too long to store");
      }
      buf.writeShort(topic.length).writeBytes(topic).writeInt(tp.partition());
    }

    /** Drops an unfinished frame. */
    void release() {
      buf.release();
    }

    /** Fills in the length and CRC and hands the frame over. */
    ByteBuf finish() {
      int payloadLength = buf.writerIndex() - FRAME_HEADER_LENGTH;
      buf.setInt(0, payloadLength);
      buf.setInt(4, crc(buf, FRAME_HEADER_LENGTH, payloadLength));
      return buf;
    }
  }

  /** The records of one frame, and the position just after it in its object. */
  record Frame(List<Record> records, int end) {}

  /**
   * The good frames of an object; {@code end} is the position after the last of them, and {@code
   * problem} says why reading stopped before the end of the object, or is null.
   */
  record ScanResult(List<Frame> frames, int end, String problem) {}

  /**
   * Reads the frames of an object from its first byte until its end or the first frame that is
   * torn, fails its CRC, or does not parse. Does not release {@code data}.
   */
  static ScanResult scan(ByteBuf data) {
    List<Frame> frames = new ArrayList<>();
    int pos = data.readerIndex();
    int end = data.writerIndex();
    while (pos < end) {
      if (end - pos < FRAME_HEADER_LENGTH) {
        return new ScanResult(frames, pos, "a frame header cut short");
      }
      int length = data.getInt(pos);
      int crc = data.getInt(pos + 4);
      if (length < 1 || length > end - pos - FRAME_HEADER_LENGTH) {
        return new ScanResult(frames, pos, "a frame of length " + length + " running past the end");
      }
      int start = pos + FRAME_HEADER_LENGTH;
      if (crc(data, start, length) != crc) {
        return new ScanResult(frames, pos, "a frame failing its CRC32C check");
      }
      List<Record> records;
      try {
        records = parsePayload(data.slice(start, length));
      } catch (MalformedFrameException | IndexOutOfBoundsException e) {
        return new ScanResult(frames, pos, "a frame that does not parse: " + e.getMessage());
      }
      pos = start + length;
      frames.add(new Frame(records, pos));
    }
    return new ScanResult(frames, pos, null);
  }

  private static List<Record> parsePayload(ByteBuf p) throws MalformedFrameException {
    byte version = p.readByte();
    if (version != VERSION) {
      throw new MalformedFrameException("format version " + version + ", this broker reads 1");
    }
    List<Record> records = new ArrayList<>();
    while (p.isReadable()) {
      byte type = p.readByte();
      switch (type) {
        case GROUP_ID -> {
          need(p, 4, 0);
          records.add(new GroupIdRecord(readString(p, need(p, 0, p.readInt()))));
        }
        case OFFSET_COMMIT -> {
          TopicPartition tp = readPartition(p);
          need(p, 32, 0);
          long offset = p.readLong();
          int leaderEpoch = p.readInt();
          long commitTs = p.readLong();
          long expireTs = p.readLong();
          int metadataLength = p.readInt();
          String metadata = metadataLength == -1 ? null : readString(p, need(p, 0, metadataLength));
          records.add(
              new CommitRecord(
                  tp, new OffsetAndMetadata(offset, leaderEpoch, metadata, commitTs, expireTs)));
        }
        case OFFSET_DELETION -> records.add(new DeletionRecord(readPartition(p)));
        case METADATA -> {
          need(p, 4, 0);
          int length = p.readInt();
          byte[] bytes = null;
          if (length != -1) {
            bytes = new byte[need(p, 0, length)];
            p.readBytes(bytes);
          }
          records.add(new MetadataRecord(bytes));
        }
        default -> throw new MalformedFrameException("unknown record type " + type);
      }
    }
    return records;
  }

  private static TopicPartition readPartition(ByteBuf p) throws MalformedFrameException {
    need(p, 2, 0);
    int topicLength = p.readShort();
    String topic = readString(p, need(p, 0, topicLength));
    need(p, 4, 0);
    return new TopicPartition(topic, p.readInt());
  }

  /**
   * Checks that {@code length} more bytes, after {@code fixed} bytes still to be read, are there
   * and that the length is not negative; returns {@code length}. Guards every read of a length so a
   * bad one never allocates or reads past the frame.
   */
  private static int need(ByteBuf p, int fixed, int length) throws MalformedFrameException {
    if (length < 0 || (long) fixed + length > p.readableBytes()) {
      throw new MalformedFrameException(
          "a field of " + ((long) fixed + length) + " bytes with " + p.readableBytes() + " left");
    }
    return length;
  }

  private static String readString(ByteBuf p, int length) {
    String s = p.toString(p.readerIndex(), length, StandardCharsets.UTF_8);
    p.skipBytes(length);
    return s;
  }

  static int crc(ByteBuf buf, int index, int length) {
    CRC32C crc = new CRC32C();
    crc.update(buf.nioBuffer(index, length));
    return (int) crc.getValue();
  }

  /** A frame whose CRC matched but whose records do not parse. */
  static final class MalformedFrameException extends Exception {
    MalformedFrameException(String message) {
      super(message);
    }
  }
}
