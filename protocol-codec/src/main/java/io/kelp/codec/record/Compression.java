package io.kelp.codec.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The compression codecs of a record batch, numbered as in attribute bits 0-2. A compressed batch
 * compresses its records section (everything after the 61-byte header) as one unit.
 *
 * <p>Buffer ownership: {@link #compress} and {@link #decompress} read the source's readable bytes
 * without moving its indexes and return a new buffer that the caller owns and must release. On
 * failure nothing is left allocated.
 */
public enum Compression {
  NONE(0, "none"),
  GZIP(1, "gzip"),
  /** Reads both the xerial/snappy-java framing and raw snappy blocks; writes the framing. */
  SNAPPY(2, "snappy"),
  /** The LZ4 frame format with independent blocks, as Kafka's clients write it. */
  LZ4(3, "lz4"),
  ZSTD(4, "zstd");

  private static final Compression[] BY_ID = values();

  private final int id;
  private final String wireName;

  Compression(int id, String wireName) {
    this.id = id;
    this.wireName = wireName;
  }

  /** The id in attribute bits 0-2. */
  public int id() {
    return id;
  }

  /** The name used by the {@code compression.type} config. */
  public String wireName() {
    return wireName;
  }

  /** The codec with this id, or null for ids 5-7, which no Kafka version defines. */
  public static Compression forIdOrNull(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /** The codec with this id; throws {@link InvalidRecordException} for an unknown one. */
  public static Compression forId(int id) {
    Compression compression = forIdOrNull(id);
    if (compression == null) {
      throw new InvalidRecordException("unknown compression codec id " + id);
    }
    return compression;
  }

  /** Compresses {@code src}'s readable bytes into a new buffer owned by the caller. */
  public ByteBuf compress(ByteBuf src, ByteBufAllocator alloc) {
    return switch (this) {
      case NONE ->
          alloc
              .heapBuffer(src.readableBytes())
              .writeBytes(src, src.readerIndex(), src.readableBytes());
      case GZIP -> GzipCodec.compress(src, alloc);
      case SNAPPY -> SnappyCodec.compress(src, alloc);
      case LZ4 -> Lz4FrameCodec.compress(src, alloc);
      case ZSTD -> ZstdCodec.compress(src, alloc);
    };
  }

  /**
   * Decompresses {@code src}'s readable bytes into a new heap buffer owned by the caller. Throws
   * {@link InvalidRecordException} when the input is corrupt or truncated, or when the output would
   * exceed {@code maxSize} bytes; the check happens while inflating, so a small input that would
   * inflate to gigabytes costs at most {@code maxSize} bytes of memory.
   */
  public ByteBuf decompress(ByteBuf src, int maxSize, ByteBufAllocator alloc) {
    if (maxSize < 0) {
      throw new IllegalArgumentException("maxSize " + maxSize);
    }
    return switch (this) {
      case NONE -> {
        if (src.readableBytes() > maxSize) {
          throw CappedOutput.tooLarge(this, maxSize);
        }
        yield alloc
            .heapBuffer(src.readableBytes())
            .writeBytes(src, src.readerIndex(), src.readableBytes());
      }
      case GZIP -> GzipCodec.decompress(src, maxSize, alloc);
      case SNAPPY -> SnappyCodec.decompress(src, maxSize, alloc);
      case LZ4 -> Lz4FrameCodec.decompress(src, maxSize, alloc);
      case ZSTD -> ZstdCodec.decompress(src, maxSize, alloc);
    };
  }
}
