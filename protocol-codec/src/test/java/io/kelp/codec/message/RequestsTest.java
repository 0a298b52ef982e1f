package io.kelp.codec.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.wire.RequestHeader;
import io.kelp.codec.wire.WireWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Request parsing of valid and deliberately broken frames. */
class RequestsTest {

  private static ByteBuf frame(short key, short version, ByteBuf body) {
    ByteBuf out = Unpooled.buffer();
    new RequestHeader(key, version, 7, "test").write(new WireWriter(out), (short) 1);
    out.writeBytes(body);
    return out;
  }

  private static ByteBuf produceV8(int topicCount, int partitionCount, int recordsLength) {
    ByteBuf body = Unpooled.buffer();
    body.writeShort(-1); // transactional id: null
    body.writeShort(-1); // acks
    body.writeInt(30000); // timeout
    body.writeInt(topicCount);
    body.writeShort(1).writeByte('t');
    body.writeInt(partitionCount);
    body.writeInt(0); // partition index
    body.writeInt(recordsLength);
    body.writeBytes(new byte[] {1, 2, 3});
    return frame((short) 0, (short) 8, body);
  }

  @Test
  void validProduceParses() {
    ParsedRequest parsed = Requests.parse(produceV8(1, 1, 3));
    assertEquals(ParsedRequest.Status.OK, parsed.status(), parsed.error());
    ProduceRequest request = (ProduceRequest) parsed.body();
    assertEquals(-1, request.acks());
    assertNull(request.transactionalId());
    assertEquals("t", request.topicData().get(0).name());
    assertEquals(3, request.topicData().get(0).partitionData().get(0).records().readableBytes());
  }

  @Test
  void hugeArrayCountIsRejectedBeforeAllocating() {
    ParsedRequest parsed = Requests.parse(produceV8(Integer.MAX_VALUE, 1, 3));
    assertEquals(ParsedRequest.Status.MALFORMED_BODY, parsed.status());
    assertTrue(parsed.error().contains("TopicData claims 2147483647 elements"), parsed.error());
  }

  @Test
  void negativeArrayCountIsRejected() {
    ParsedRequest parsed = Requests.parse(produceV8(1, -5, 3));
    assertEquals(ParsedRequest.Status.MALFORMED_BODY, parsed.status());
    assertTrue(parsed.error().contains("negative element count -5"), parsed.error());
  }

  @Test
  void recordsLongerThanTheFrameAreRejected() {
    ParsedRequest parsed = Requests.parse(produceV8(1, 1, 1 << 30));
    assertEquals(ParsedRequest.Status.MALFORMED_BODY, parsed.status());
    assertTrue(parsed.error().contains("Records claims"), parsed.error());
  }

  @Test
  void everyTruncationOfAValidFrameIsAnError() {
    ByteBuf full = produceV8(1, 1, 3);
    for (int length = 0; length < full.readableBytes(); length++) {
      ParsedRequest parsed = Requests.parse(full.slice(0, length));
      assertTrue(parsed.status() != ParsedRequest.Status.OK, "truncated at " + length);
    }
  }

  @Test
  void runawayVarintInAFlexibleBodyIsAnError() {
    ByteBuf body = Unpooled.buffer();
    body.writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
    body.writeBytes(new byte[] {(byte) 0xff, 1});
    ByteBuf out = Unpooled.buffer();
    new RequestHeader((short) 18, (short) 3, 1, "c").write(new WireWriter(out), (short) 2);
    out.writeBytes(body);
    ParsedRequest parsed = Requests.parse(out);
    assertEquals(ParsedRequest.Status.MALFORMED_BODY, parsed.status());
    assertTrue(parsed.error().contains("varint"), parsed.error());
  }

  @Test
  void unknownKeyAndUnsupportedVersionAreReportedWithTheHeader() {
    ParsedRequest unknown = Requests.parse(frame((short) 999, (short) 0, Unpooled.buffer()));
    assertEquals(ParsedRequest.Status.UNKNOWN_API_KEY, unknown.status());
    assertEquals(7, unknown.header().correlationId());

    ParsedRequest tooNew = Requests.parse(frame((short) 18, (short) 99, Unpooled.buffer()));
    assertEquals(ParsedRequest.Status.UNSUPPORTED_VERSION, tooNew.status());
    assertEquals(18, tooNew.api().apiKey());
    assertEquals(7, tooNew.header().correlationId());
  }

  @Test
  void headerTooShortForAClientIdIsMalformed() {
    ByteBuf out = Unpooled.buffer().writeShort(18).writeShort(3).writeInt(5).writeShort(40);
    ParsedRequest parsed = Requests.parse(out);
    assertEquals(ParsedRequest.Status.MALFORMED_HEADER, parsed.status());
  }

  @Test
  void apiVersionsRequestV3IsFlexibleWithAHeaderV2() {
    ApiVersionsRequest request =
        new ApiVersionsRequest().setClientSoftwareName("kcat").setClientSoftwareVersion("1.7");
    ByteBuf out = Unpooled.buffer();
    WireWriter writer = new WireWriter(out);
    new RequestHeader((short) 18, (short) 3, 11, "rdkafka").write(writer, (short) 2);
    request.write(writer, (short) 3);
    ParsedRequest parsed = Requests.parse(out);
    assertEquals(ParsedRequest.Status.OK, parsed.status(), parsed.error());
    assertEquals(request, parsed.body());
    assertEquals(List.of(), parsed.body().unknownTaggedFields());
  }
}
