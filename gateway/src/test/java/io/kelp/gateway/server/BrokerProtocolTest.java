package io.kelp.gateway.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.message.AlterConfigsRequest;
import io.kelp.codec.message.AlterConfigsResponse;
import io.kelp.codec.message.ApiVersionsRequest;
import io.kelp.codec.message.ApiVersionsResponse;
import io.kelp.codec.message.CreateTopicsRequest;
import io.kelp.codec.message.CreateTopicsResponse;
import io.kelp.codec.message.DescribeConfigsRequest;
import io.kelp.codec.message.DescribeConfigsResponse;
import io.kelp.codec.message.DescribeTopicPartitionsRequest;
import io.kelp.codec.message.DescribeTopicPartitionsResponse;
import io.kelp.codec.message.FetchRequest;
import io.kelp.codec.message.FetchResponse;
import io.kelp.codec.message.InitProducerIdRequest;
import io.kelp.codec.message.InitProducerIdResponse;
import io.kelp.codec.message.MetadataRequest;
import io.kelp.codec.message.MetadataResponse;
import io.kelp.codec.message.OffsetForLeaderEpochRequest;
import io.kelp.codec.message.OffsetForLeaderEpochResponse;
import io.kelp.codec.message.ProduceRequest;
import io.kelp.codec.message.ProduceResponse;
import io.kelp.codec.record.RecordBatchBuilder;
import io.kelp.codec.wire.RequestHeader;
import io.kelp.codec.wire.WireWriter;
import io.kelp.gateway.testing.TestBroker;
import io.kelp.gateway.testing.WireClient;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exact protocol behaviour over a raw socket, for what the Java clients never send. */
class BrokerProtocolTest {
  @TempDir Path dir;
  private TestBroker kelp;
  private WireClient wire;
  private final List<ByteBuf> built = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    kelp = TestBroker.start(dir);
    wire = new WireClient(kelp.port());
  }

  @AfterEach
  void stop() throws Exception {
    built.forEach(ByteBuf::release);
    if (wire != null) {
      wire.close();
    }
    if (kelp != null) {
      kelp.close();
    }
  }

  private void createTopic(String name, int partitions) throws Exception {
    CreateTopicsRequest.CreatableTopic t =
        new CreateTopicsRequest.CreatableTopic()
            .setName(name)
            .setNumPartitions(partitions)
            .setReplicationFactor((short) 1);
    CreateTopicsResponse r =
        wire.call(new CreateTopicsRequest().setTopics(new ArrayList<>(List.of(t))), (short) 7);
    assertEquals(0, r.topics().get(0).errorCode(), r.toString());
  }

  private ByteBuf batch(String value) {
    return owned(
        new RecordBatchBuilder()
            .append(System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8))
            .build());
  }

  /** Test-side buffers, released after each test. */
  private ByteBuf owned(ByteBuf buf) {
    built.add(buf);
    return buf;
  }

  private ByteBuf idempotent(long producerId, int sequence, String value) {
    return owned(
        new RecordBatchBuilder()
            .producer(producerId, (short) 0, sequence)
            .append(System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8))
            .build());
  }

  private static ProduceRequest produce(short acks, String topic, Map<Integer, ByteBuf> records) {
    ProduceRequest.TopicProduceData t = new ProduceRequest.TopicProduceData().setName(topic);
    records.forEach(
        (p, r) ->
            t.partitionData()
                .add(new ProduceRequest.PartitionProduceData().setIndex(p).setRecords(r)));
    ProduceRequest req = new ProduceRequest().setAcks(acks).setTimeoutMs(10000);
    req.topicData().add(t);
    return req;
  }

  @Test
  void apiVersionsAdvertisesExactlyTheServedApis() throws Exception {
    ApiVersionsResponse r =
        wire.call(
            new ApiVersionsRequest()
                .setClientSoftwareName("kelp-test")
                .setClientSoftwareVersion("1.0"),
            (short) 4);
    assertEquals(0, r.errorCode());
    Map<Integer, String> ranges = new TreeMap<>();
    r.apiKeys().forEach(k -> ranges.put((int) k.apiKey(), k.minVersion() + "-" + k.maxVersion()));
    Map<Integer, String> expected = new TreeMap<>();
    expected.put(0, "0-11");
    expected.put(1, "4-12");
    expected.put(2, "1-7");
    expected.put(3, "0-12");
    expected.put(8, "2-9");
    expected.put(9, "1-9");
    expected.put(10, "0-4");
    expected.put(11, "0-9");
    expected.put(12, "0-4");
    expected.put(13, "0-5");
    expected.put(14, "0-5");
    expected.put(15, "0-6");
    expected.put(16, "0-5");
    expected.put(18, "0-4");
    expected.put(19, "2-7");
    expected.put(20, "1-6");
    expected.put(21, "0-2");
    expected.put(22, "0-5");
    expected.put(23, "2-4");
    expected.put(29, "1-3");
    expected.put(30, "1-3");
    expected.put(31, "1-3");
    expected.put(32, "1-4");
    expected.put(33, "0-2");
    expected.put(35, "1-4");
    expected.put(37, "0-3");
    expected.put(42, "0-2");
    expected.put(44, "0-1");
    expected.put(47, "0-0");
    expected.put(60, "0-2");
    expected.put(68, "0-1");
    expected.put(69, "0-1");
    expected.put(75, "0-0");
    assertEquals(expected, ranges);
    assertTrue(r.finalizedFeatures().isEmpty(), "no finalized features: clients stay on TV1");
  }

  @Test
  void produceV2ClosesTheConnectionAndOthersKeepWorking() throws Exception {
    ByteBuf raw = Unpooled.buffer();
    raw.writeInt(0);
    new RequestHeader((short) 0, (short) 2, 1, "old").write(new WireWriter(raw), (short) 1);
    raw.writeShort(1).writeInt(1000).writeInt(0);
    raw.setInt(0, raw.readableBytes() - 4);
    wire.sendRaw(raw);
    raw.release();
    assertTrue(wire.closedByBroker());
    try (WireClient other = new WireClient(kelp.port())) {
      MetadataResponse m = other.call(new MetadataRequest().setTopics(null), (short) 12);
      assertEquals(1, m.brokers().size());
    }
  }

  @Test
  void aCorruptBatchFailsOnlyItsPartition() throws Exception {
    createTopic("mixed", 2);
    ByteBuf good = batch("fine");
    ByteBuf bad = batch("broken");
    bad.setByte(bad.writerIndex() - 1, bad.getByte(bad.writerIndex() - 1) ^ 0x55);
    ProduceResponse r = wire.call(produce((short) -1, "mixed", Map.of(0, good, 1, bad)), (short) 9);
    Map<Integer, Short> codes = new TreeMap<>();
    r.responses().get(0).partitionResponses().forEach(p -> codes.put(p.index(), p.errorCode()));
    assertEquals(Map.of(0, (short) 0, 1, (short) 2), codes, "CORRUPT_MESSAGE for the bad CRC only");
  }

  @Test
  void idempotentDuplicatesGetTheirOriginalOffsetsAndGapsAreRejected() throws Exception {
    createTopic("idem", 1);
    InitProducerIdResponse id =
        wire.call(new InitProducerIdRequest().setTransactionalId(null), (short) 4);
    long pid = id.producerId();
    ProduceResponse r =
        wire.call(produce((short) -1, "idem", Map.of(0, idempotent(pid, 0, "a"))), (short) 9);
    assertEquals(0, r.responses().get(0).partitionResponses().get(0).errorCode());
    r = wire.call(produce((short) -1, "idem", Map.of(0, idempotent(pid, 1, "b"))), (short) 9);
    assertEquals(1, r.responses().get(0).partitionResponses().get(0).baseOffset());
    // The first batch again: acknowledged with its original offset, stored once.
    r = wire.call(produce((short) -1, "idem", Map.of(0, idempotent(pid, 0, "a"))), (short) 9);
    assertEquals(0, r.responses().get(0).partitionResponses().get(0).errorCode());
    assertEquals(0, r.responses().get(0).partitionResponses().get(0).baseOffset());
    // A gap in the sequence.
    r = wire.call(produce((short) -1, "idem", Map.of(0, idempotent(pid, 5, "c"))), (short) 9);
    assertEquals(45, r.responses().get(0).partitionResponses().get(0).errorCode());
    assertEquals(
        2, kelp.broker().services().topics().get("idem").orElseThrow().log(0).logEndOffset());
  }

  @Test
  void compactedTopicsNeedKeys() throws Exception {
    CreateTopicsRequest.CreatableTopic t =
        new CreateTopicsRequest.CreatableTopic()
            .setName("compacted")
            .setNumPartitions(1)
            .setReplicationFactor((short) -1);
    t.configs()
        .add(
            new CreateTopicsRequest.CreatableTopicConfig()
                .setName("cleanup.policy")
                .setValue("compact"));
    CreateTopicsResponse created =
        wire.call(new CreateTopicsRequest().setTopics(new ArrayList<>(List.of(t))), (short) 5);
    assertEquals(0, created.topics().get(0).errorCode());
    ByteBuf keyless = batch("no key");
    ProduceResponse r = wire.call(produce((short) 1, "compacted", Map.of(0, keyless)), (short) 9);
    ProduceResponse.PartitionProduceResponse p = r.responses().get(0).partitionResponses().get(0);
    assertEquals(87, p.errorCode(), "INVALID_RECORD");
    assertEquals(0, p.recordErrors().get(0).batchIndex());
  }

  @Test
  void transactionalProduceAndBadAcksAreRefusedPerPartition() throws Exception {
    createTopic("tx", 1);
    ByteBuf b = batch("v");
    ProduceRequest tx = produce((short) -1, "tx", Map.of(0, b));
    tx.setTransactionalId("my-tx");
    ProduceResponse r = wire.call(tx, (short) 9);
    assertEquals(48, r.responses().get(0).partitionResponses().get(0).errorCode());
    r = wire.call(produce((short) 2, "tx", Map.of(0, b)), (short) 9);
    assertEquals(21, r.responses().get(0).partitionResponses().get(0).errorCode());
    r = wire.call(produce((short) 1, "nope", Map.of(0, b)), (short) 9);
    assertEquals(3, r.responses().get(0).partitionResponses().get(0).errorCode());
  }

  @Test
  void acksZeroGetsNoResponseAndAFailureClosesTheConnection() throws Exception {
    createTopic("quiet", 1);
    ByteBuf b = batch("v");
    wire.send(produce((short) 0, "quiet", Map.of(0, b)), (short) 9);
    int id = wire.send(new MetadataRequest().setTopics(null), (short) 12);
    // The next response on the wire is the Metadata one: the produce got none.
    assertNotNull(wire.receive((short) 3, (short) 12, id));
    wire.send(produce((short) 0, "missing", Map.of(0, b)), (short) 9);
    assertTrue(wire.closedByBroker());
  }

  @Test
  void fetchDeclinesSessionsAndNeverReturnsNullRecords() throws Exception {
    createTopic("fetched", 1);
    ByteBuf b = batch("v");
    wire.call(produce((short) -1, "fetched", Map.of(0, b)), (short) 9);
    FetchRequest f = fetch("fetched", 0, 0, -1);
    f.topics().add(topic("unknown", 0, 0, -1));
    FetchResponse r = wire.call(f, (short) 12);
    assertEquals(0, r.sessionId());
    FetchResponse.PartitionData ok = r.responses().get(0).partitions().get(0);
    assertEquals(0, ok.errorCode());
    assertEquals(1, ok.highWatermark());
    assertTrue(ok.records().readableBytes() > 0);
    FetchResponse.PartitionData missing = r.responses().get(1).partitions().get(0);
    assertEquals(3, missing.errorCode());
    assertNotNull(missing.records(), "records are never null");
    assertEquals(0, missing.records().readableBytes());

    FetchRequest incremental = fetch("fetched", 0, 0, -1).setSessionId(5).setSessionEpoch(3);
    FetchResponse err = wire.call(incremental, (short) 12);
    assertEquals(70, err.errorCode(), "FETCH_SESSION_ID_NOT_FOUND");

    FetchResponse past = wire.call(fetch("fetched", 0, 99, -1), (short) 12);
    assertEquals(1, past.responses().get(0).partitions().get(0).errorCode(), "OFFSET_OUT_OF_RANGE");
  }

  @Test
  void leaderEpochsAreCheckedAndEndOffsetsAnswered() throws Exception {
    createTopic("epochs", 1);
    // A restart moves the leader epoch from 0 to 1, so there is an older epoch to be fenced by.
    wire.close();
    kelp.restart();
    wire = new WireClient(kelp.port());
    ByteBuf b = batch("v");
    wire.call(produce((short) -1, "epochs", Map.of(0, b)), (short) 9);
    int epoch = kelp.broker().services().topics().get("epochs").orElseThrow().log(0).leaderEpoch();
    MetadataResponse m =
        wire.call(
            new MetadataRequest()
                .setTopics(
                    new ArrayList<>(
                        List.of(new MetadataRequest.MetadataRequestTopic().setName("epochs")))),
            (short) 12);
    assertEquals(epoch, m.topics().get(0).partitions().get(0).leaderEpoch());

    FetchResponse stale = wire.call(fetch("epochs", 0, 0, epoch - 1), (short) 12);
    assertEquals(74, stale.responses().get(0).partitions().get(0).errorCode());
    FetchResponse ahead = wire.call(fetch("epochs", 0, 0, epoch + 1), (short) 12);
    assertEquals(75, ahead.responses().get(0).partitions().get(0).errorCode());

    OffsetForLeaderEpochRequest.OffsetForLeaderTopic t =
        new OffsetForLeaderEpochRequest.OffsetForLeaderTopic().setTopic("epochs");
    t.partitions()
        .add(
            new OffsetForLeaderEpochRequest.OffsetForLeaderPartition()
                .setPartition(0)
                .setLeaderEpoch(epoch));
    OffsetForLeaderEpochRequest req = new OffsetForLeaderEpochRequest();
    req.topics().add(t);
    OffsetForLeaderEpochResponse r = wire.call(req, (short) 2);
    OffsetForLeaderEpochResponse.EpochEndOffset end = r.topics().get(0).partitions().get(0);
    assertEquals(0, end.errorCode());
    assertEquals(epoch, end.leaderEpoch());
    assertEquals(1, end.endOffset());
    assertTrue(epoch >= 1);
  }

  @Test
  void initProducerIdHandsOutFreshIdsAndBumpsEpochs() throws Exception {
    InitProducerIdResponse first =
        wire.call(new InitProducerIdRequest().setTransactionalId(null), (short) 4);
    InitProducerIdResponse second =
        wire.call(new InitProducerIdRequest().setTransactionalId(null), (short) 0);
    assertEquals(0, first.errorCode());
    assertEquals(0, first.producerEpoch());
    assertNotEquals(first.producerId(), second.producerId());
    InitProducerIdResponse bumped =
        wire.call(
            new InitProducerIdRequest()
                .setTransactionalId(null)
                .setProducerId(first.producerId())
                .setProducerEpoch(first.producerEpoch()),
            (short) 4);
    assertEquals(first.producerId(), bumped.producerId());
    assertEquals(1, bumped.producerEpoch());
    InitProducerIdResponse tx =
        wire.call(new InitProducerIdRequest().setTransactionalId("t"), (short) 4);
    assertEquals(42, tx.errorCode(), "transactions come later");
    InitProducerIdResponse empty =
        wire.call(new InitProducerIdRequest().setTransactionalId(""), (short) 4);
    assertEquals(42, empty.errorCode(), "an empty transactional id is invalid, as in Kafka");
  }

  @Test
  void legacyAlterConfigsReplacesTheWholeSet() throws Exception {
    createTopic("legacy", 1);
    AlterConfigsRequest.AlterConfigsResource res =
        new AlterConfigsRequest.AlterConfigsResource()
            .setResourceType((byte) 2)
            .setResourceName("legacy");
    res.configs()
        .add(new AlterConfigsRequest.AlterableConfig().setName("retention.ms").setValue("100"));
    res.configs()
        .add(new AlterConfigsRequest.AlterableConfig().setName("segment.ms").setValue("200"));
    AlterConfigsRequest req = new AlterConfigsRequest();
    req.resources().add(res);
    AlterConfigsResponse r = wire.call(req, (short) 1);
    assertEquals(0, r.responses().get(0).errorCode());
    res.configs().remove(1);
    r = wire.call(req, (short) 1);
    assertEquals(0, r.responses().get(0).errorCode());
    assertEquals(
        Map.of("retention.ms", "100"),
        kelp.broker().services().topics().get("legacy").orElseThrow().config().explicit());

    res.configs().add(new AlterConfigsRequest.AlterableConfig().setName("bogus").setValue("1"));
    r = wire.call(req, (short) 1);
    assertEquals(40, r.responses().get(0).errorCode(), "INVALID_CONFIG");
  }

  @Test
  void describeConfigsV1ForOldLibrdkafkaAndV3WithDocumentation() throws Exception {
    createTopic("described", 1);
    DescribeConfigsRequest req =
        new DescribeConfigsRequest().setIncludeSynonyms(true).setIncludeDocumentation(true);
    req.resources()
        .add(
            new DescribeConfigsRequest.DescribeConfigsResource()
                .setResourceType((byte) 2)
                .setResourceName("described")
                .setConfigurationKeys(new ArrayList<>(List.of("cleanup.policy", "not.a.key"))));
    DescribeConfigsResponse v1 = wire.call(req, (short) 1);
    assertEquals(1, v1.results().get(0).configs().size(), "unknown keys are left out");
    DescribeConfigsResponse.DescribeConfigsResourceResult e = v1.results().get(0).configs().get(0);
    assertEquals("delete", e.value());
    assertEquals(5, e.configSource());
    DescribeConfigsResponse v3 = wire.call(req, (short) 3);
    DescribeConfigsResponse.DescribeConfigsResourceResult e3 = v3.results().get(0).configs().get(0);
    assertEquals(7, e3.configType(), "LIST");
    assertNotNull(e3.documentation());
    assertEquals("log.cleanup.policy", e3.synonyms().get(0).name());
  }

  @Test
  void describeTopicPartitionsPagesWithACursor() throws Exception {
    createTopic("page-a", 3);
    createTopic("page-b", 2);
    DescribeTopicPartitionsRequest req =
        new DescribeTopicPartitionsRequest().setResponsePartitionLimit(2);
    req.topics().add(new DescribeTopicPartitionsRequest.TopicRequest().setName("page-a"));
    req.topics().add(new DescribeTopicPartitionsRequest.TopicRequest().setName("page-b"));
    List<String> seen = new ArrayList<>();
    for (int page = 0; page < 5; page++) {
      DescribeTopicPartitionsResponse r = wire.call(req, (short) 0);
      r.topics()
          .forEach(t -> t.partitions().forEach(p -> seen.add(t.name() + "-" + p.partitionIndex())));
      if (r.nextCursor() == null) {
        break;
      }
      req.setCursor(
          new DescribeTopicPartitionsRequest.Cursor()
              .setTopicName(r.nextCursor().topicName())
              .setPartitionIndex(r.nextCursor().partitionIndex()));
    }
    assertEquals(List.of("page-a-0", "page-a-1", "page-a-2", "page-b-0", "page-b-1"), seen);
  }

  @Test
  void metadataFindsTopicsByIdFromV12AndHonoursTheAutoCreateFlag() throws Exception {
    createTopic("by-id", 1);
    var id = kelp.broker().services().topics().get("by-id").orElseThrow().topicId();
    MetadataRequest byId = new MetadataRequest();
    byId.setTopics(
        new ArrayList<>(
            List.of(new MetadataRequest.MetadataRequestTopic().setName(null).setTopicId(id))));
    MetadataResponse r = wire.call(byId, (short) 12);
    assertEquals("by-id", r.topics().get(0).name());
    assertEquals(0, r.topics().get(0).errorCode());

    MetadataRequest noCreate =
        new MetadataRequest()
            .setAllowAutoTopicCreation(false)
            .setTopics(
                new ArrayList<>(
                    List.of(new MetadataRequest.MetadataRequestTopic().setName("not-made"))));
    MetadataResponse none = wire.call(noCreate, (short) 9);
    assertEquals(3, none.topics().get(0).errorCode());
    assertFalse(kelp.broker().services().topics().get("not-made").isPresent());

    MetadataRequest invalid =
        new MetadataRequest()
            .setTopics(
                new ArrayList<>(
                    List.of(new MetadataRequest.MetadataRequestTopic().setName("bad name"))));
    assertEquals(
        17, ((MetadataResponse) wire.call(invalid, (short) 9)).topics().get(0).errorCode());
  }

  private static FetchRequest.FetchTopic topic(String name, int partition, long offset, int epoch) {
    FetchRequest.FetchTopic t = new FetchRequest.FetchTopic().setTopic(name);
    t.partitions()
        .add(
            new FetchRequest.FetchPartition()
                .setPartition(partition)
                .setFetchOffset(offset)
                .setCurrentLeaderEpoch(epoch)
                .setPartitionMaxBytes(1 << 20));
    return t;
  }

  private static FetchRequest fetch(String name, int partition, long offset, int epoch) {
    FetchRequest f = new FetchRequest().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 24);
    f.topics().add(topic(name, partition, offset, epoch));
    return f;
  }
}
