package io.kelp.engine.log;

import io.kelp.codec.record.Compression;
import io.kelp.codec.record.Record;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatchBuilder;
import io.kelp.codec.record.RecordBatches;
import io.kelp.codec.record.RecordIterator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Record batches as clients send them, and what reads return, for the log tests. */
final class Batches {
  private Batches() {}

  /** One batch of {@code count} records with values "{prefix}-{i}", timestamps from {@code ts}. */
  static ByteBuf batch(String prefix, int count, long ts) {
    RecordBatchBuilder b = new RecordBatchBuilder();
    for (int i = 0; i < count; i++) {
      b.append(ts + i, null, bytes(prefix + "-" + i));
    }
    return Unpooled.wrappedBuffer(heapCopy(b));
  }

  /** An idempotent producer's batch. */
  static ByteBuf idempotent(long producerId, short epoch, int baseSequence, int count) {
    RecordBatchBuilder b = new RecordBatchBuilder().producer(producerId, epoch, baseSequence);
    long now = System.currentTimeMillis();
    for (int i = 0; i < count; i++) {
      b.append(now + i, null, bytes("p" + producerId + "-" + (baseSequence + i)));
    }
    return Unpooled.wrappedBuffer(heapCopy(b));
  }

  /** A keyed record batch, for compaction; a null value is a tombstone. */
  static ByteBuf keyed(long ts, Compression compression, String... keyValues) {
    RecordBatchBuilder b = new RecordBatchBuilder().compression(compression);
    for (int i = 0; i < keyValues.length; i += 2) {
      String v = keyValues[i + 1];
      b.append(ts, bytes(keyValues[i]), v == null ? null : bytes(v));
    }
    return Unpooled.wrappedBuffer(heapCopy(b));
  }

  /** A batch of one record of about {@code size} bytes. */
  static ByteBuf sized(int size, long ts) {
    byte[] value = new byte[Math.max(0, size - 80)];
    return Unpooled.wrappedBuffer(heapCopy(new RecordBatchBuilder().append(ts, null, value)));
  }

  private static byte[] heapCopy(RecordBatchBuilder b) {
    ByteBuf built = b.build();
    try {
      byte[] out = new byte[built.readableBytes()];
      built.getBytes(built.readerIndex(), out);
      return out;
    } finally {
      built.release();
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The batches in {@code records}, as views; the buffer must stay alive while they are used. */
  static List<RecordBatch> batchesOf(ByteBuf records) {
    List<RecordBatch> out = new ArrayList<>();
    RecordBatches.Walker walker = RecordBatches.walk(records);
    while (walker.hasNext()) {
      out.add(walker.next());
    }
    if (walker.end() != RecordBatches.End.COMPLETE) {
      throw new AssertionError("not whole batches: " + walker.problem());
    }
    return out;
  }

  /** A read record: offset, key and value as text. */
  record Rec(long offset, long timestamp, String key, String value) {}

  /** Every record in {@code records}, in order. */
  static List<Rec> records(ByteBuf records) {
    List<Rec> out = new ArrayList<>();
    for (RecordBatch batch : batchesOf(records)) {
      if (!batch.isCrcValid()) {
        throw new AssertionError("CRC mismatch in " + batch);
      }
      try (RecordIterator it = batch.records(64 << 20)) {
        while (it.hasNext()) {
          Record r = it.next();
          out.add(
              new Rec(
                  r.offset(),
                  r.timestamp(),
                  r.key() == null ? null : r.key().toString(StandardCharsets.UTF_8),
                  r.value() == null ? null : r.value().toString(StandardCharsets.UTF_8)));
        }
      }
    }
    return out;
  }
}
