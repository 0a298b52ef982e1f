package io.kelp.bench;

import io.kelp.codec.message.FetchResponse;
import io.kelp.codec.message.ProduceRequest;
import io.kelp.codec.wire.ResponseHeader;
import io.kelp.codec.wire.WireReader;
import io.kelp.codec.wire.WireWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.requests.RequestHeader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding and encoding a Produce request (v11) and a Fetch response (v12) that carry 1 MiB of
 * record batches (4 partitions, one uncompressed batch of 256 records of 1 KiB each), with Kelp's
 * codec and with kafka-clients' generated classes on the same bytes.
 *
 * <p>"Copy" encoders size the message, allocate one heap buffer of that size and write everything
 * into it (Kelp: size() then write; Kafka: MessageUtil, which does the same). "ZeroCopy" encoders
 * build a whole response or request frame the way each network layer sends it: Kelp's zero-copy
 * writer over the pooled allocator, Kafka's SendBuilder. Multiply ops/s by 1 MiB for MB/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class CodecBenchmark {
  static final short PRODUCE_VERSION = 11;
  static final short FETCH_VERSION = 12;
  static final int PARTITIONS = 4;

  private final ByteBufAllocator pooled = PooledByteBufAllocator.DEFAULT;

  private ProduceRequest kelpProduce;
  private ProduceRequestData kafkaProduce;
  private ByteBuf produceBody;
  private ByteBuffer produceBodyNio;

  private FetchResponse kelpFetch;
  private FetchResponseData kafkaFetch;
  private ByteBuf fetchBody;
  private ByteBuffer fetchBodyNio;

  @Setup
  public void setup() {
    List<byte[]> batches = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      batches.add(batch(p));
    }
    kelpProduce = new ProduceRequest().setAcks((short) -1).setTimeoutMs(30000);
    ProduceRequest.TopicProduceData topic = new ProduceRequest.TopicProduceData().setName("bench");
    kafkaProduce = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30000);
    ProduceRequestData.TopicProduceData kafkaTopic =
        new ProduceRequestData.TopicProduceData().setName("bench");
    kelpFetch = new FetchResponse().setSessionId(0);
    FetchResponse.FetchableTopicResponse fetchTopic =
        new FetchResponse.FetchableTopicResponse().setTopic("bench");
    kafkaFetch = new FetchResponseData().setSessionId(0);
    FetchResponseData.FetchableTopicResponse kafkaFetchTopic =
        new FetchResponseData.FetchableTopicResponse().setTopic("bench");
    for (int p = 0; p < PARTITIONS; p++) {
      byte[] bytes = batches.get(p);
      topic
          .partitionData()
          .add(
              new ProduceRequest.PartitionProduceData()
                  .setIndex(p)
                  .setRecords(Unpooled.wrappedBuffer(bytes)));
      kafkaTopic
          .partitionData()
          .add(
              new ProduceRequestData.PartitionProduceData()
                  .setIndex(p)
                  .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(bytes))));
      fetchTopic
          .partitions()
          .add(
              new FetchResponse.PartitionData()
                  .setPartitionIndex(p)
                  .setHighWatermark(256)
                  .setLastStableOffset(256)
                  .setLogStartOffset(0)
                  .setRecords(Unpooled.wrappedBuffer(bytes)));
      kafkaFetchTopic
          .partitions()
          .add(
              new FetchResponseData.PartitionData()
                  .setPartitionIndex(p)
                  .setHighWatermark(256)
                  .setLastStableOffset(256)
                  .setLogStartOffset(0)
                  .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(bytes))));
    }
    kelpProduce.topicData().add(topic);
    kafkaProduce.topicData().add(kafkaTopic);
    kelpFetch.responses().add(fetchTopic);
    kafkaFetch.responses().add(kafkaFetchTopic);

    produceBody = Unpooled.buffer();
    kelpProduce.write(new WireWriter(produceBody), PRODUCE_VERSION);
    produceBodyNio = ByteBuffer.wrap(bytesOf(produceBody));
    fetchBody = Unpooled.buffer();
    kelpFetch.write(new WireWriter(fetchBody), FETCH_VERSION);
    fetchBodyNio = ByteBuffer.wrap(bytesOf(fetchBody));
    requireSame(produceBodyNio, MessageUtil.toByteBufferAccessor(kafkaProduce, PRODUCE_VERSION));
    requireSame(fetchBodyNio, MessageUtil.toByteBufferAccessor(kafkaFetch, FETCH_VERSION));
  }

  private static byte[] batch(int partition) {
    ByteBuffer buffer = ByteBuffer.allocate(300 * 1024);
    MemoryRecordsBuilder builder =
        MemoryRecords.builder(
            buffer,
            RecordBatch.CURRENT_MAGIC_VALUE,
            Compression.NONE,
            TimestampType.CREATE_TIME,
            0L,
            System.currentTimeMillis(),
            1000L + partition,
            (short) 0,
            0,
            false,
            RecordBatch.NO_PARTITION_LEADER_EPOCH);
    byte[] value = new byte[1024];
    Arrays.fill(value, (byte) 'k');
    for (int i = 0; i < 256; i++) {
      builder.append(System.currentTimeMillis(), ("key-" + i).getBytes(), value);
    }
    ByteBuffer built = builder.build().buffer();
    byte[] out = new byte[built.remaining()];
    built.get(out);
    return out;
  }

  private static byte[] bytesOf(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), out);
    return out;
  }

  private static void requireSame(ByteBuffer ours, ByteBufferAccessor kafka) {
    ByteBuffer k = kafka.buffer();
    k.rewind();
    if (!ours.duplicate().equals(k)) {
      throw new IllegalStateException("Kelp and Kafka encode the benchmark message differently");
    }
  }

  // ---- Produce request ----

  @Benchmark
  public ProduceRequest produceRequestDecodeKelp() {
    ProduceRequest request = new ProduceRequest();
    WireReader reader = new WireReader(produceBody.duplicate());
    request.read(reader, PRODUCE_VERSION);
    if (!reader.ok()) {
      throw new IllegalStateException(reader.error());
    }
    return request;
  }

  @Benchmark
  public ProduceRequestData produceRequestDecodeKafka() {
    ProduceRequestData request = new ProduceRequestData();
    request.read(new ByteBufferAccessor(produceBodyNio.duplicate()), PRODUCE_VERSION);
    return request;
  }

  @Benchmark
  public int produceRequestEncodeCopyKelp() {
    ByteBuf out = Unpooled.buffer(kelpProduce.size(PRODUCE_VERSION));
    kelpProduce.write(new WireWriter(out), PRODUCE_VERSION);
    return out.readableBytes();
  }

  @Benchmark
  public int produceRequestEncodeCopyKafka() {
    return MessageUtil.toByteBufferAccessor(kafkaProduce, PRODUCE_VERSION).buffer().limit();
  }

  @Benchmark
  public int produceRequestFrameZeroCopyKelp() {
    return frame(kelpProduce, PRODUCE_VERSION, true);
  }

  @Benchmark
  public long produceRequestFrameZeroCopyKafka() {
    RequestHeader header =
        new RequestHeader(
            new RequestHeaderData()
                .setRequestApiKey((short) 0)
                .setRequestApiVersion(PRODUCE_VERSION)
                .setClientId("bench")
                .setCorrelationId(1),
            (short) 2);
    Send send = SendBuilder.buildRequestSend(header, kafkaProduce);
    return send.size();
  }

  // ---- Fetch response ----

  @Benchmark
  public FetchResponse fetchResponseDecodeKelp() {
    FetchResponse response = new FetchResponse();
    WireReader reader = new WireReader(fetchBody.duplicate());
    response.read(reader, FETCH_VERSION);
    if (!reader.ok()) {
      throw new IllegalStateException(reader.error());
    }
    return response;
  }

  @Benchmark
  public FetchResponseData fetchResponseDecodeKafka() {
    FetchResponseData response = new FetchResponseData();
    response.read(new ByteBufferAccessor(fetchBodyNio.duplicate()), FETCH_VERSION);
    return response;
  }

  @Benchmark
  public int fetchResponseEncodeCopyKelp() {
    ByteBuf out = Unpooled.buffer(kelpFetch.size(FETCH_VERSION));
    kelpFetch.write(new WireWriter(out), FETCH_VERSION);
    return out.readableBytes();
  }

  @Benchmark
  public int fetchResponseEncodeCopyKafka() {
    return MessageUtil.toByteBufferAccessor(kafkaFetch, FETCH_VERSION).buffer().limit();
  }

  @Benchmark
  public int fetchResponseFrameZeroCopyKelp() {
    return frame(kelpFetch, FETCH_VERSION, false);
  }

  @Benchmark
  public long fetchResponseFrameZeroCopyKafka() {
    Send send =
        SendBuilder.buildResponseSend(
            new org.apache.kafka.common.requests.ResponseHeader(
                new ResponseHeaderData().setCorrelationId(1), (short) 1),
            kafkaFetch,
            FETCH_VERSION);
    return send.size();
  }

  /** A whole size-prefixed frame as the gateway sends it: header, body, records by reference. */
  private int frame(io.kelp.codec.wire.ApiMessage body, short version, boolean request) {
    WireWriter writer = WireWriter.zeroCopy(pooled, 4096);
    writer.writeInt32(0);
    if (request) {
      new io.kelp.codec.wire.RequestHeader((short) 0, version, 1, "bench").write(writer, (short) 2);
    } else {
      ResponseHeader.write(writer, 1, (short) 1);
    }
    body.write(writer, version);
    ByteBuf frame = writer.finish();
    int size = frame.readableBytes();
    frame.setInt(0, size - 4);
    frame.release();
    return size;
  }
}
