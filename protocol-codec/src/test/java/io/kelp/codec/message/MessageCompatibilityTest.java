package io.kelp.codec.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.codec.wire.RawTaggedField;
import io.kelp.codec.wire.WireReader;
import io.kelp.codec.wire.WireWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.utils.ImplicitLinkedHashCollection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves our codec against Apache Kafka's own generated message classes (kafka-clients, test
 * scope), for every API key we define and every version: messages populated with every field the
 * version has are encoded by one side, decoded by the other and re-encoded, and the bytes must be
 * identical, in both directions, for requests and responses. Runs also with nulls wherever a
 * version allows them, and with unknown tagged fields that our codec must carry through.
 */
class MessageCompatibilityTest {
  private static final int ROUNDS = 4;
  private static final Map<Integer, String> COVERAGE = new TreeMap<>();

  /** All defined APIs, or only the keys in -Dkelp.codec.keys=0,1,2 when set. */
  static Stream<ApiMessageType> apis() {
    String only = System.getProperty("kelp.codec.keys", "");
    if (only.isBlank()) {
      return ApiMessageTypes.all().stream();
    }
    List<Integer> keys =
        Stream.of(only.split(",")).map(String::trim).map(Integer::valueOf).toList();
    return ApiMessageTypes.all().stream().filter(t -> keys.contains((int) t.apiKey()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("apis")
  void everyVersionMatchesKafkaByteForByte(ApiMessageType ours) {
    org.apache.kafka.common.message.ApiMessageType kafka =
        org.apache.kafka.common.message.ApiMessageType.fromApiKey(ours.apiKey());
    assertEquals(
        kafka.lowestSupportedVersion(), ours.lowestVersion(), ours + ": lowest version differs");
    assertEquals(
        kafka.highestSupportedVersion(true), ours.highestVersion(), ours + ": highest version");
    for (short v = ours.lowestVersion(); v <= ours.highestVersion(); v++) {
      for (int round = 0; round < ROUNDS; round++) {
        long seed = ours.apiKey() * 1_000_003L + v * 101L + round;
        boolean nulls = round % 2 == 1;
        String where = ours + " v" + v + " round " + round;
        oursToKafka(where + " request", ours.newRequest(), kafka.newRequest(), v, seed, nulls);
        oursToKafka(where + " response", ours.newResponse(), kafka.newResponse(), v, seed, nulls);
        kafkaToOurs(where + " request", kafka.newRequest(), ours.newRequest(), v, seed, nulls);
        kafkaToOurs(where + " response", kafka.newResponse(), ours.newResponse(), v, seed, nulls);
      }
    }
    synchronized (COVERAGE) {
      COVERAGE.put(
          (int) ours.apiKey(),
          String.format(
              "%-3d %-32s %d-%d (requests and responses)",
              ours.apiKey(), ours.name(), ours.lowestVersion(), ours.highestVersion()));
    }
  }

  @Test
  void everyRequiredApiKeyIsDefined() {
    int[] required = {
      0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28, 29,
      30, 31, 32, 33, 35, 36, 37, 42, 44, 47, 48, 49, 50, 51, 60, 61, 65, 66, 68, 69, 75
    };
    List<Integer> missing = new ArrayList<>();
    for (int key : required) {
      if (ApiMessageTypes.forKey(key) == null) {
        missing.add(key);
      }
    }
    assertEquals(List.of(), missing, "API keys without definitions");
  }

  @AfterAll
  static void printCoverage() {
    StringBuilder table = new StringBuilder("\nCodec coverage proven against kafka-clients:\n");
    table.append(String.format("%-3s %-32s %s%n", "key", "api", "versions"));
    COVERAGE.values().forEach(row -> table.append(row).append('\n'));
    System.out.println(table);
  }

  /** Ours populated, ours encodes; Kafka decodes and re-encodes: the bytes must not change. */
  private static void oursToKafka(
      String where, ApiMessage ours, Message kafka, short v, long seed, boolean nulls) {
    Random random = new Random(seed);
    new MessagePopulator(ours, random, OURS, m -> oursWritable((ApiMessage) m, v), nulls)
        .populate();
    byte[] ourBytes = oursEncode(ours, v);
    ByteBuffer buffer = ByteBuffer.wrap(ourBytes);
    try {
      kafka.read(new ByteBufferAccessor(buffer), v);
    } catch (RuntimeException e) {
      fail(where + ": Kafka cannot read our bytes: " + e + "\nours: " + ours, e);
    }
    assertEquals(0, buffer.remaining(), where + ": Kafka left bytes unread; ours: " + ours);
    byte[] kafkaBytes = kafkaEncode(kafka, v);
    if (!java.util.Arrays.equals(ourBytes, kafkaBytes)) {
      fail(
          where
              + ": bytes differ after Kafka's round trip\nours:  "
              + ByteBufUtil.hexDump(ourBytes)
              + "\nkafka: "
              + ByteBufUtil.hexDump(kafkaBytes)
              + "\nour message: "
              + ours
              + "\nkafka's: "
              + kafka);
    }
  }

  /** Kafka populated, Kafka encodes; ours decodes and re-encodes: the bytes must not change. */
  private static void kafkaToOurs(
      String where, Message kafka, ApiMessage ours, short v, long seed, boolean nulls) {
    Random random = new Random(seed ^ 0x5DEECE66DL);
    new MessagePopulator(kafka, random, KAFKA, m -> kafkaWritable((Message) m, v), nulls)
        .populate();
    boolean flexible = ApiMessageTypes.forKey(ours.apiKey()).isFlexible(v);
    if (flexible) {
      // Tags far above any defined one: our codec must keep them and write them back in place.
      kafka
          .unknownTaggedFields()
          .add(
              new org.apache.kafka.common.protocol.types.RawTaggedField(
                  1000 + random.nextInt(100), new byte[] {1, 2, 3}));
    }
    byte[] kafkaBytes = kafkaEncode(kafka, v);
    ByteBuf in = Unpooled.wrappedBuffer(kafkaBytes);
    WireReader reader = new WireReader(in);
    ours.read(reader, v);
    assertTrue(reader.ok(), () -> where + ": we cannot read Kafka's bytes: " + reader.error());
    assertEquals(0, in.readableBytes(), where + ": we left bytes unread");
    if (flexible) {
      List<RawTaggedField> unknown = ours.unknownTaggedFields();
      assertEquals(1, unknown.size(), where + ": unknown tagged field not kept");
    }
    byte[] ourBytes = oursEncode(ours, v);
    if (!java.util.Arrays.equals(kafkaBytes, ourBytes)) {
      assertArrayEquals(
          kafkaBytes,
          ourBytes,
          where
              + ": bytes differ after our round trip\nkafka: "
              + ByteBufUtil.hexDump(kafkaBytes)
              + "\nours:  "
              + ByteBufUtil.hexDump(ourBytes)
              + "\nkafka's message: "
              + kafka
              + "\nours: "
              + ours);
    }
  }

  private static boolean oursWritable(ApiMessage message, short v) {
    try {
      oursEncode(message, v);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static boolean kafkaWritable(Message message, short v) {
    try {
      MessageUtil.toByteBufferAccessor(message, v);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Encodes with our codec, checking that size() predicted the exact length. */
  static byte[] oursEncode(ApiMessage message, short v) {
    ByteBuf out = Unpooled.buffer();
    message.write(new WireWriter(out), v);
    assertEquals(message.size(v), out.readableBytes(), "size() of " + message);
    return ByteBufUtil.getBytes(out);
  }

  static byte[] kafkaEncode(Message message, short v) {
    ByteBuffer b = MessageUtil.toByteBufferAccessor(message, v).buffer();
    b.rewind();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }

  private static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  static final MessagePopulator.Dialect OURS =
      new MessagePopulator.Dialect() {
        @Override
        public Object special(Class<?> type, Random random) {
          if (type == ByteBuf.class) {
            return Unpooled.wrappedBuffer(bytes(random, 1 + random.nextInt(24)));
          }
          return null;
        }

        @Override
        public Class<?> collectionElement(Class<?> collectionType) {
          return null;
        }
      };

  static final MessagePopulator.Dialect KAFKA =
      new MessagePopulator.Dialect() {
        @Override
        public Object special(Class<?> type, Random random) {
          if (type == Uuid.class) {
            return new Uuid(random.nextLong() | 1, random.nextLong());
          }
          if (type == BaseRecords.class || type == MemoryRecords.class) {
            return MemoryRecords.readableRecords(
                ByteBuffer.wrap(bytes(random, 1 + random.nextInt(24))));
          }
          if (type == UUID.class) {
            return null;
          }
          return null;
        }

        @Override
        public Class<?> collectionElement(Class<?> collectionType) {
          if (!ImplicitLinkedHashCollection.class.isAssignableFrom(collectionType)) {
            return null;
          }
          java.lang.reflect.Type superType = collectionType.getGenericSuperclass();
          while (!(superType instanceof java.lang.reflect.ParameterizedType)) {
            superType = ((Class<?>) superType).getGenericSuperclass();
          }
          return (Class<?>)
              ((java.lang.reflect.ParameterizedType) superType).getActualTypeArguments()[0];
        }
      };

  @Test
  void populatorSetsNestedFields() {
    ProduceRequest request = new ProduceRequest();
    new MessagePopulator(request, new Random(1), OURS, m -> true, false).populate();
    assertNotNull(request.transactionalId());
    assertTrue(!request.topicData().isEmpty());
    Collection<ProduceRequest.PartitionProduceData> partitions =
        request.topicData().get(0).partitionData();
    assertTrue(!partitions.isEmpty());
    assertNotNull(partitions.iterator().next().records());
  }
}
