package io.kelp.gateway.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.message.ApiVersionsRequest;
import io.kelp.codec.message.ApiVersionsResponse;
import io.kelp.codec.message.MetadataRequest;
import io.kelp.codec.message.MetadataResponse;
import io.kelp.codec.message.ProduceRequest;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.ApiHandlers;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.api.apiversions.ApiVersionsHandler;
import io.kelp.gateway.metrics.KelpMetrics;
import io.kelp.gateway.server.BrokerConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline on its own (frame decoder, request decoder, response encoder, dispatcher) in an
 * EmbeddedChannel, with the real ApiVersions handler and test handlers whose completion the test
 * controls.
 */
class RequestPipelineTest {
  private static final int MAX_FRAME = 4096;

  private final List<CompletableFuture<ApiMessage>> metadataCalls = new ArrayList<>();
  private final ApiHandlers table = new ApiHandlers();
  private final List<ByteBuf> sent = new ArrayList<>();
  private EmbeddedChannel channel;

  /** Produce served from v3, advertised from v0, never answering (like acks=0). */
  private static final class SilentProduce implements ApiHandler {
    @Override
    public short apiKey() {
      return 0;
    }

    @Override
    public short minVersion() {
      return 0;
    }

    @Override
    public short maxVersion() {
      return 11;
    }

    @Override
    public short minServedVersion() {
      return 3;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
      return CompletableFuture.completedFuture(null);
    }
  }

  private void open() {
    table.register(new ApiVersionsHandler(table));
    table.register(new ControlledMetadata(metadataCalls));
    table.register(new SilentProduce());
    BrokerServices services = ControlledMetadata.services(MAX_FRAME);
    channel =
        new EmbeddedChannel(
            new FrameDecoder(MAX_FRAME),
            new RequestDecoder(table),
            new ResponseEncoder(services.metrics()),
            new RequestDispatcher(services, 100, 1 << 20));
  }

  private void send(ByteBuf frame) {
    sent.add(frame);
    channel.writeInbound(frame);
  }

  @AfterEach
  void noLeaks() {
    channel.finishAndReleaseAll();
    for (ByteBuf b : sent) {
      assertEquals(0, b.refCnt(), "every request byte was released");
    }
  }

  @Test
  void apiVersionsListsExactlyTheHandlerTable() {
    open();
    send(
        WireFrames.request(
            7,
            (short) 3,
            new ApiVersionsRequest().setClientSoftwareName("t").setClientSoftwareVersion("1")));
    WireFrames.Response<ApiVersionsResponse> r =
        WireFrames.response(channel.readOutbound(), (short) 18, (short) 3);
    assertEquals(7, r.correlationId());
    assertEquals(0, r.body().errorCode());
    assertEquals(3, r.body().apiKeys().size());
    assertEquals(0, r.body().apiKeys().get(0).apiKey());
    assertEquals(0, r.body().apiKeys().get(0).minVersion());
    assertEquals(11, r.body().apiKeys().get(0).maxVersion());
    assertTrue(channel.isActive());
  }

  @Test
  void apiVersionsAtAnUnknownVersionIsAnsweredAtV0WithUnsupportedVersion() {
    open();
    // A v99 body cannot be parsed; Kafka answers with a v0 body and the supported ranges.
    send(WireFrames.rawRequest((short) 18, (short) 99, 11, 5));
    WireFrames.Response<ApiVersionsResponse> r =
        WireFrames.response(channel.readOutbound(), (short) 18, (short) 0);
    assertEquals(11, r.correlationId());
    assertEquals(35, r.body().errorCode());
    assertEquals(3, r.body().apiKeys().size());
    assertEquals(18, r.body().apiKeys().get(2).apiKey());
    assertEquals(4, r.body().apiKeys().get(2).maxVersion());
    assertTrue(channel.isActive(), "never close on ApiVersions");
  }

  @Test
  void oversizedFrameClosesTheConnection() {
    open();
    ByteBuf frame = io.netty.buffer.Unpooled.buffer();
    frame.writeInt(MAX_FRAME + 1).writeZero(100);
    send(frame);
    assertFalse(channel.isActive());
    assertNull(channel.readOutbound());
  }

  @Test
  void negativeFrameSizeClosesTheConnection() {
    open();
    ByteBuf frame = io.netty.buffer.Unpooled.buffer();
    frame.writeInt(-5).writeZero(8);
    send(frame);
    assertFalse(channel.isActive());
  }

  @Test
  void garbageClosesTheConnection() {
    open();
    ByteBuf frame = io.netty.buffer.Unpooled.buffer();
    frame.writeInt(3).writeBytes(new byte[] {1, 2, 3});
    send(frame);
    assertFalse(channel.isActive());
    assertNull(channel.readOutbound());
  }

  @Test
  void unknownApiKeyClosesTheConnection() {
    open();
    send(WireFrames.rawRequest((short) 999, (short) 0, 1, 0));
    assertFalse(channel.isActive());
  }

  @Test
  void apiKnownToTheCodecButNotServedClosesTheConnection() {
    open();
    send(WireFrames.rawRequest((short) 8, (short) 2, 1, 0)); // OffsetCommit: groups come later
    assertFalse(channel.isActive());
  }

  @Test
  void versionOutsideTheServedRangeClosesTheConnection() {
    open();
    send(WireFrames.request(1, (short) 13, new MetadataRequest())); // served up to 12
    assertFalse(channel.isActive());
  }

  @Test
  void produceV2IsAdvertisedButClosesTheConnection() {
    open();
    send(WireFrames.rawRequest((short) 0, (short) 2, 1, 10));
    assertFalse(channel.isActive());
  }

  @Test
  void malformedBodyClosesTheConnection() {
    open();
    ByteBuf frame = WireFrames.request(1, (short) 9, new MetadataRequest());
    // Cut the body short and fix the size prefix.
    frame.writerIndex(frame.writerIndex() - 2);
    frame.setInt(0, frame.readableBytes() - 4);
    send(frame);
    assertFalse(channel.isActive());
  }

  @Test
  void responsesLeaveInRequestOrderWhenHandlersFinishOutOfOrder() {
    open();
    for (int i = 1; i <= 3; i++) {
      send(WireFrames.request(i, (short) 12, new MetadataRequest()));
    }
    assertEquals(3, metadataCalls.size());
    metadataCalls.get(2).complete(new MetadataResponse().setClusterId("third"));
    metadataCalls.get(1).complete(new MetadataResponse().setClusterId("second"));
    assertNull(channel.readOutbound(), "nothing may pass the unfinished first request");
    metadataCalls.get(0).complete(new MetadataResponse().setClusterId("first"));
    String[] expected = {"first", "second", "third"};
    for (int i = 0; i < 3; i++) {
      WireFrames.Response<MetadataResponse> r =
          WireFrames.response(channel.readOutbound(), (short) 3, (short) 12);
      assertEquals(i + 1, r.correlationId());
      assertEquals(expected[i], r.body().clusterId());
    }
  }

  @Test
  void handlersFinishingOnOtherThreadsStillAnswerInOrder() throws Exception {
    open();
    send(WireFrames.request(1, (short) 12, new MetadataRequest()));
    send(WireFrames.request(2, (short) 12, new MetadataRequest()));
    Thread t2 =
        new Thread(() -> metadataCalls.get(1).complete(new MetadataResponse().setClusterId("b")));
    t2.start();
    t2.join();
    Thread t1 =
        new Thread(() -> metadataCalls.get(0).complete(new MetadataResponse().setClusterId("a")));
    t1.start();
    t1.join();
    channel.runPendingTasks();
    assertEquals(
        "a",
        WireFrames.<MetadataResponse>response(channel.readOutbound(), (short) 3, (short) 12)
            .body()
            .clusterId());
    assertEquals(
        "b",
        WireFrames.<MetadataResponse>response(channel.readOutbound(), (short) 3, (short) 12)
            .body()
            .clusterId());
  }

  @Test
  void acksZeroProduceGetsNoResponseButKeepsItsPlace() {
    open();
    send(WireFrames.request(1, (short) 12, new MetadataRequest()));
    send(WireFrames.request(2, (short) 9, new ProduceRequest().setAcks((short) 0)));
    send(WireFrames.request(3, (short) 12, new MetadataRequest()));
    metadataCalls.get(1).complete(new MetadataResponse());
    assertNull(channel.readOutbound());
    metadataCalls.get(0).complete(new MetadataResponse());
    assertEquals(
        1, WireFrames.response(channel.readOutbound(), (short) 3, (short) 12).correlationId());
    assertEquals(
        3, WireFrames.response(channel.readOutbound(), (short) 3, (short) 12).correlationId());
    assertNull(channel.readOutbound());
    assertTrue(channel.isActive());
  }

  @Test
  void framesSplitAcrossReadsAreReassembled() {
    open();
    ByteBuf whole = WireFrames.request(5, (short) 2, new ApiVersionsRequest());
    ByteBuf first = whole.readRetainedSlice(3);
    ByteBuf rest = whole.readRetainedSlice(whole.readableBytes());
    whole.release();
    send(first);
    assertNull(channel.readOutbound());
    send(rest);
    assertEquals(
        5, WireFrames.response(channel.readOutbound(), (short) 18, (short) 2).correlationId());
  }

  @Test
  void aFailedHandlerClosesTheConnectionAfterEarlierResponses() {
    open();
    send(WireFrames.request(1, (short) 12, new MetadataRequest()));
    send(WireFrames.request(2, (short) 12, new MetadataRequest()));
    metadataCalls.get(0).complete(new MetadataResponse());
    metadataCalls.get(1).completeExceptionally(new IllegalStateException("boom"));
    assertEquals(
        1, WireFrames.response(channel.readOutbound(), (short) 3, (short) 12).correlationId());
    channel.runPendingTasks();
    assertFalse(channel.isActive());
  }

  @Test
  void tooManyRequestsInFlightStopsReadingUntilTheyFinish() {
    table.register(new ApiVersionsHandler(table));
    table.register(new ControlledMetadata(metadataCalls));
    BrokerServices services =
        new BrokerServices(
            BrokerConfig.of(Map.of()),
            "c",
            null,
            null,
            null,
            Runnable::run,
            new KelpMetrics(),
            () -> 0L);
    channel =
        new EmbeddedChannel(
            new FrameDecoder(MAX_FRAME),
            new RequestDecoder(table),
            new ResponseEncoder(services.metrics()),
            new RequestDispatcher(services, 2, 1 << 20));
    send(WireFrames.request(1, (short) 12, new MetadataRequest()));
    assertTrue(channel.config().isAutoRead());
    send(WireFrames.request(2, (short) 12, new MetadataRequest()));
    assertFalse(channel.config().isAutoRead());
    metadataCalls.get(0).complete(new MetadataResponse());
    assertTrue(channel.config().isAutoRead());
    metadataCalls.get(1).complete(new MetadataResponse());
    WireFrames.response(channel.readOutbound(), (short) 3, (short) 12);
    WireFrames.response(channel.readOutbound(), (short) 3, (short) 12);
  }
}
