package io.kelp.codec.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestHeaderTest {

  private static byte[] kafkaBytes(org.apache.kafka.common.protocol.Message m, short v) {
    ByteBuffer b = MessageUtil.toByteBufferAccessor(m, v).buffer();
    b.rewind();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @ParameterizedTest
  @ValueSource(shorts = {1, 2})
  void requestHeaderMatchesKafka(short headerVersion) {
    for (String clientId : new String[] {"producer-1", null, "", "kliënt-漢"}) {
      RequestHeaderData kafka =
          new RequestHeaderData()
              .setRequestApiKey((short) 3)
              .setRequestApiVersion((short) 12)
              .setCorrelationId(0x12345678)
              .setClientId(clientId);
      if (headerVersion == 2) {
        kafka.unknownTaggedFields().add(new RawTaggedField(7, new byte[] {9, 8}));
      }
      byte[] expected = kafkaBytes(kafka, headerVersion);

      RequestHeader ours = new RequestHeader();
      WireReader reader = new WireReader(Unpooled.wrappedBuffer(expected));
      ours.read(reader, headerVersion);
      assertTrue(reader.ok(), reader.error());
      assertEquals(0, reader.remaining());
      assertEquals(3, ours.apiKey());
      assertEquals(12, ours.apiVersion());
      assertEquals(0x12345678, ours.correlationId());
      assertEquals(clientId, ours.clientId());

      ByteBuf out = Unpooled.buffer();
      ours.write(new WireWriter(out), headerVersion);
      assertArrayEquals(expected, ByteBufUtil.getBytes(out));
    }
  }

  @ParameterizedTest
  @ValueSource(shorts = {0, 1})
  void responseHeaderMatchesKafka(short headerVersion) {
    byte[] expected = kafkaBytes(new ResponseHeaderData().setCorrelationId(-77), headerVersion);
    ByteBuf out = Unpooled.buffer();
    ResponseHeader.write(new WireWriter(out), -77, headerVersion);
    assertArrayEquals(expected, ByteBufUtil.getBytes(out));
    WireReader reader = new WireReader(Unpooled.wrappedBuffer(expected));
    assertEquals(-77, ResponseHeader.read(reader, headerVersion));
    assertTrue(reader.ok());
    assertEquals(0, reader.remaining());
  }

  @Test
  void clientIdIsNeverCompactEvenInHeaderV2() {
    // v2 header with client id "ab": int16 length 2, then a tagged-field count of 0.
    byte[] frame = {0, 18, 0, 3, 0, 0, 0, 1, 0, 2, 'a', 'b', 0};
    RequestHeader header = new RequestHeader();
    WireReader reader = new WireReader(Unpooled.wrappedBuffer(frame));
    header.read(reader, (short) 2);
    assertTrue(reader.ok(), reader.error());
    assertEquals("ab", header.clientId());
    assertEquals(0, reader.remaining());
  }

  @Test
  void truncatedHeaderIsAnErrorNotAnException() {
    byte[] frame = {0, 18, 0, 3, 0, 0, 0, 1, 0, 9, 'a'};
    RequestHeader header = new RequestHeader();
    WireReader reader = new WireReader(Unpooled.wrappedBuffer(frame));
    header.read(reader, (short) 1);
    assertFalse(reader.ok());
    assertTrue(reader.error().contains("ClientId"), reader.error());
    assertNull(header.clientId());
  }

  @Test
  void kafkaReadsOurHeader() {
    RequestHeader ours = new RequestHeader((short) 0, (short) 9, 42, "me");
    ByteBuf out = Unpooled.buffer();
    ours.write(new WireWriter(out), (short) 2);
    RequestHeaderData kafka = new RequestHeaderData();
    kafka.read(new ByteBufferAccessor(ByteBuffer.wrap(ByteBufUtil.getBytes(out))), (short) 2);
    assertEquals(42, kafka.correlationId());
    assertEquals("me", kafka.clientId());
  }
}
