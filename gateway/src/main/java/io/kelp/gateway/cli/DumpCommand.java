package io.kelp.gateway.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.kelp.codec.record.Record;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordHeader;
import io.kelp.codec.record.RecordIterator;
import io.kelp.engine.catalog.TopicCatalog;
import io.kelp.engine.catalog.TopicInfo;
import io.kelp.engine.log.LogReader;
import io.kelp.engine.store.LocalObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kelp dump}: prints the records stored for a topic as JSON lines, straight from the store
 * and without a running broker (it claims and changes nothing):
 *
 * <pre>
 * {"partition":0,"offset":5,"timestamp":1764453600000,"timestampType":"CreateTime",
 *  "key":"k","value":"v","headers":[{"key":"h","value":"x"}]}
 * </pre>
 *
 * Keys, values and header values are UTF-8 text when they are valid UTF-8, else base64 with a
 * {@code "keyEncoding":"base64"} (or {@code valueEncoding}) marker; null stays null. Transaction
 * markers are not printed.
 */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    description = "Print a topic's stored records as JSON lines, offline.")
final class DumpCommand implements Callable<Integer> {
  @Option(names = "--data-dir", required = true, paramLabel = "DIR", description = "Data dir.")
  Path dataDir;

  @Option(names = "--topic", required = true, paramLabel = "T", description = "The topic.")
  String topic;

  @Option(
      names = "--partition",
      paramLabel = "P",
      description = "Only this partition (default: all, one after another).")
  Integer partition;

  @Option(
      names = "--from-offset",
      paramLabel = "O",
      defaultValue = "0",
      description = "Start at this offset (default: ${DEFAULT-VALUE}).")
  long fromOffset;

  @Option(
      names = "--namespace",
      paramLabel = "NAME",
      defaultValue = "kafka",
      description = "Store namespace of the topics (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--max-batch-bytes",
      paramLabel = "BYTES",
      defaultValue = "268435456",
      description = "Most bytes a compressed batch may inflate to (default: ${DEFAULT-VALUE}).")
  int maxBatchBytes;

  @Override
  public Integer call() throws IOException {
    if (!Files.isDirectory(dataDir)) {
      System.err.println("kelp dump: no data directory " + dataDir);
      return 1;
    }
    try (LocalObjectStore store = new LocalObjectStore(dataDir, UnpooledByteBufAllocator.DEFAULT)) {
      TopicCatalog catalog = new TopicCatalog(store, namespace);
      catalog.load();
      Optional<TopicInfo> info = catalog.get(topic);
      if (info.isEmpty()) {
        System.err.println("kelp dump: no topic " + topic + " in " + dataDir);
        return 1;
      }
      int first = 0;
      int last = info.get().partitions() - 1;
      if (partition != null) {
        if (partition < 0 || partition > last) {
          System.err.println(
              "kelp dump: topic " + topic + " has no partition " + partition + " (0-" + last + ")");
          return 1;
        }
        first = partition;
        last = partition;
      }
      OutputStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
      try (JsonGenerator json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
        json.setRootValueSeparator(null);
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        for (int p = first; p <= last; p++) {
          int part = p;
          LogReader.readBatches(
              store,
              catalog.partitionDir(info.get(), p),
              fromOffset,
              batch -> {
                writeBatch(json, part, batch);
                return true;
              });
        }
      }
      out.flush();
    }
    return 0;
  }

  private void writeBatch(JsonGenerator json, int part, ByteBuf bytes) throws IOException {
    RecordBatch batch = RecordBatch.at(bytes, bytes.readerIndex());
    if (batch.isControl()) {
      return;
    }
    try (RecordIterator records = batch.records(maxBatchBytes)) {
      while (records.hasNext()) {
        Record r = records.next();
        if (r.offset() < fromOffset) {
          continue;
        }
        json.writeStartObject();
        json.writeNumberField("partition", part);
        json.writeNumberField("offset", r.offset());
        json.writeNumberField("timestamp", r.timestamp());
        json.writeStringField("timestampType", timestampType(batch));
        writeBytes(json, "key", r.hasKey() ? r.keyBytes() : null);
        writeBytes(json, "value", r.hasValue() ? r.valueBytes() : null);
        json.writeArrayFieldStart("headers");
        for (RecordHeader h : r.headers()) {
          json.writeStartObject();
          json.writeStringField("key", h.key());
          writeBytes(json, "value", h.value());
          json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
        json.writeRaw('\n');
      }
    }
    json.flush();
  }

  private static String timestampType(RecordBatch batch) {
    return switch (batch.timestampType()) {
      case LOG_APPEND_TIME -> "LogAppendTime";
      default -> "CreateTime";
    };
  }

  /** Writes {@code name} as UTF-8 text, or base64 with a {@code <name>Encoding} marker. */
  static void writeBytes(JsonGenerator json, String name, byte[] value) throws IOException {
    if (value == null) {
      json.writeNullField(name);
      return;
    }
    String text = utf8(value);
    if (text != null) {
      json.writeStringField(name, text);
    } else {
      json.writeStringField(name, Base64.getEncoder().encodeToString(value));
      json.writeStringField(name + "Encoding", "base64");
    }
  }

  private static String utf8(byte[] value) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(value))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
