package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bytes no real client sends, over a raw socket: the broker answers or closes that one connection,
 * and a well-behaved producer and consumer, connected all along, keep working.
 */
class BadInputTest {
  private static final Duration REACTION_TIMEOUT = Duration.ofSeconds(20);
  private static final String TOPIC = "bad-input";
  private static final String WELL_BEHAVED_TOPIC = "well-behaved";

  private static KelpProcess kelp;
  private static Admin admin;
  private static KafkaProducer<String, String> producer;
  private static KafkaConsumer<String, String> consumer;
  private static int roundTrips;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("BadInputTest");
    admin = Clients.admin(kelp.bootstrap());
    Clients.createTopic(admin, TOPIC, 2);
    Clients.createTopic(admin, WELL_BEHAVED_TOPIC, 1);
    producer = Clients.producer(kelp.bootstrap());
    consumer = Clients.consumer(kelp.bootstrap());
    consumer.assign(List.of(new TopicPartition(WELL_BEHAVED_TOPIC, 0)));
    assertWellBehavedClientsWork();
  }

  @AfterAll
  static void stopBroker() {
    if (kelp == null) {
      return; // it never started; the start failure is the report
    }
    try {
      if (producer != null) {
        producer.close();
        consumer.close();
        admin.close();
      }
      kelp.stop();
    } finally {
      kelp.close();
    }
  }

  @AfterEach
  void wellBehavedClientsStillWork() {
    assertTrue(kelp.isAlive(), "broker process is alive" + kelp.tail());
    assertWellBehavedClientsWork();
  }

  /** The long-lived producer sends a record and the long-lived consumer reads it back. */
  private static void assertWellBehavedClientsWork() {
    String value = "round trip " + ++roundTrips;
    RecordMetadata m;
    try {
      m =
          producer
              .send(new ProducerRecord<>(WELL_BEHAVED_TOPIC, 0, "k", value))
              .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("well-behaved producer failed" + kelp.tail(), e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
        if (r.offset() == m.offset()) {
          assertEquals(value, r.value());
          return;
        }
      }
    }
    throw new AssertionError(
        "well-behaved consumer did not read offset " + m.offset() + kelp.tail());
  }

  private static RawConnection connect() throws IOException {
    return RawConnection.open("127.0.0.1", kelp.port());
  }

  /** If the broker answered, the answer must be for this request: it starts with its id. */
  private static void assertAnsweredOrClosed(Optional<ByteBuffer> reaction, int correlationId) {
    reaction.ifPresent(
        frame -> assertEquals(correlationId, frame.getInt(0), "correlation id of the answer"));
  }

  @Test
  void oversizedFrameIsRefusedWithoutAllocatingIt() throws IOException {
    try (RawConnection raw = connect()) {
      ByteBuffer frame = ByteBuffer.allocate(4 + 1024);
      frame.putInt(1 << 30); // 1 GiB: more than the broker's heap
      raw.write(frame.array());
      Optional<ByteBuffer> reaction = raw.awaitFrameOrClose(REACTION_TIMEOUT);
      assertTrue(reaction.isEmpty(), "an oversized frame closes the connection");
    }
  }

  @Test
  void httpRequestOnTheKafkaPortIsRefused() throws IOException {
    try (RawConnection raw = connect()) {
      raw.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      // "GET " read as a size is about 1.1 GiB: the broker must not wait for it
      assertTrue(raw.awaitFrameOrClose(REACTION_TIMEOUT).isEmpty(), "connection closed");
    }
  }

  @Test
  void negativeFrameSizeIsRefused() throws IOException {
    try (RawConnection raw = connect()) {
      raw.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xf0, 1, 2, 3, 4});
      assertTrue(raw.awaitFrameOrClose(REACTION_TIMEOUT).isEmpty(), "connection closed");
    }
  }

  @Test
  void garbageFramesAreAnsweredOrRefused() throws IOException {
    Random random = new Random(20_26);
    for (int i = 0; i < 20; i++) {
      byte[] body = new byte[8 + random.nextInt(200)];
      random.nextBytes(body);
      try (RawConnection raw = connect()) {
        raw.writeFrame(ByteBuffer.wrap(body));
        assertAnsweredOrClosed(
            raw.awaitFrameOrClose(REACTION_TIMEOUT), ByteBuffer.wrap(body).getInt(4));
      }
    }
  }

  @Test
  void truncatedFrameThenHangUpLeavesTheBrokerServing() throws IOException {
    try (RawConnection raw = connect()) {
      ByteBuffer partial = ByteBuffer.allocate(4 + 10);
      partial.putInt(100);
      raw.write(partial.array());
    }
  }

  @Test
  void unknownApiKeyIsAnsweredOrRefused() throws IOException {
    try (RawConnection raw = connect()) {
      raw.writeFrame(header((short) 32_000, (short) 0, 4242));
      assertAnsweredOrClosed(raw.awaitFrameOrClose(REACTION_TIMEOUT), 4242);
    }
  }

  @Test
  void unsupportedMetadataVersionIsAnsweredOrRefused() throws IOException {
    try (RawConnection raw = connect()) {
      raw.writeFrame(header(ApiKeys.METADATA.id, (short) 999, 4343));
      assertAnsweredOrClosed(raw.awaitFrameOrClose(REACTION_TIMEOUT), 4343);
    }
  }

  @Test
  void apiVersionsAtAnUnsupportedVersionAnswersWithTheSupportedRanges() throws IOException {
    // What a newer client does first: ApiVersions above the broker's range, header v2, v3 body.
    ByteBuffer request = ByteBuffer.allocate(64);
    request.putShort(ApiKeys.API_VERSIONS.id).putShort((short) 99).putInt(4444);
    putString(request, "bad-input");
    request.put((byte) 0); // header tagged fields
    byte[] name = "future-client".getBytes(StandardCharsets.UTF_8);
    request.put((byte) (name.length + 1)).put(name); // compact string
    request.put((byte) 2).put((byte) '9'); // compact string "9"
    request.put((byte) 0); // body tagged fields
    request.flip();
    try (RawConnection raw = connect()) {
      raw.writeFrame(request);
      ByteBuffer response =
          raw.awaitFrameOrClose(REACTION_TIMEOUT)
              .orElseThrow(() -> new AssertionError("ApiVersions must be answered, not closed"));
      assertEquals(4444, response.getInt(), "correlation id (response header v0)");
      assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.getShort(), "error code");
      int count = response.getInt();
      Map<Short, short[]> ranges = new HashMap<>();
      for (int i = 0; i < count; i++) {
        ranges.put(response.getShort(), new short[] {response.getShort(), response.getShort()});
      }
      short[] apiVersions = ranges.get(ApiKeys.API_VERSIONS.id);
      assertNotNull(apiVersions, "the answer lists ApiVersions' own range: " + ranges.keySet());
      assertEquals(0, apiVersions[0], "lowest ApiVersions version");
      assertTrue(apiVersions[1] >= 3, "highest ApiVersions version " + apiVersions[1]);
    }
  }

  @Test
  void corruptBatchFailsOnlyItsPartition() throws Exception {
    SimpleRecord[] records = new SimpleRecord[5];
    for (int i = 0; i < records.length; i++) {
      records[i] =
          new SimpleRecord(
              System.currentTimeMillis(),
              ("key" + i).getBytes(StandardCharsets.UTF_8),
              ("value number " + i).getBytes(StandardCharsets.UTF_8));
    }
    MemoryRecords valid = MemoryRecords.withRecords(Compression.NONE, records);
    byte[] bytes = new byte[valid.sizeInBytes()];
    valid.buffer().duplicate().get(bytes);
    bytes[bytes.length - 2] ^= 0x01; // a byte of the last value: the batch's CRC no longer matches
    MemoryRecords corrupt = MemoryRecords.readableRecords(ByteBuffer.wrap(bytes));

    ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
    data.topicData()
        .add(
            new ProduceRequestData.TopicProduceData()
                .setName(TOPIC)
                .setPartitionData(
                    List.of(
                        new ProduceRequestData.PartitionProduceData()
                            .setIndex(0)
                            .setRecords(corrupt),
                        new ProduceRequestData.PartitionProduceData()
                            .setIndex(1)
                            .setRecords(valid))));
    short version = 9;
    RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, version, "bad-input", 4545);
    try (RawConnection raw = connect()) {
      raw.writeFrame(new ProduceRequest(data, version).serializeWithHeader(header));
      ByteBuffer frame =
          raw.awaitFrameOrClose(REACTION_TIMEOUT)
              .orElseThrow(() -> new AssertionError("Produce with acks=all must be answered"));
      ProduceResponse response = (ProduceResponse) AbstractResponse.parseResponse(frame, header);
      Map<Integer, Short> errors = new HashMap<>();
      for (ProduceResponseData.TopicProduceResponse t : response.data().responses()) {
        assertEquals(TOPIC, t.name());
        for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
          errors.put(p.index(), p.errorCode());
        }
      }
      assertEquals(
          Map.of(0, Errors.CORRUPT_MESSAGE.code(), 1, Errors.NONE.code()),
          errors,
          "per-partition error codes");
    }
    TopicPartition p0 = new TopicPartition(TOPIC, 0);
    TopicPartition p1 = new TopicPartition(TOPIC, 1);
    try (KafkaConsumer<String, String> reader = Clients.consumer(kelp.bootstrap())) {
      assertEquals(Map.of(p0, 0L, p1, 5L), reader.endOffsets(List.of(p0, p1)));
      List<ConsumerRecord<String, String>> read = Clients.readAll(reader, p1);
      assertEquals("value number 4", read.get(4).value());
    }
  }

  /** A request header v1 (key, version, correlation id, client id) with no body. */
  private static ByteBuffer header(short apiKey, short version, int correlationId) {
    ByteBuffer b = ByteBuffer.allocate(64);
    b.putShort(apiKey).putShort(version).putInt(correlationId);
    putString(b, "bad-input");
    return b.flip();
  }

  private static void putString(ByteBuffer b, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    b.putShort((short) bytes.length).put(bytes);
  }
}
