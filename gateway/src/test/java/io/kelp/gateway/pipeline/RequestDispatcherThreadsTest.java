package io.kelp.gateway.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.message.MetadataRequest;
import io.kelp.codec.message.MetadataResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandlers;
import io.kelp.gateway.api.BrokerServices;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request pipeline on a real event loop (Netty's in-process transport), where a handler's
 * future can complete on another thread than the connection's, as a group-commit write completes
 * the produce requests it made durable. The embedded channel of {@link RequestPipelineTest} runs
 * everything on the calling thread and cannot show this.
 */
class RequestDispatcherThreadsTest {
  private static final int MAX_FRAME = 4096;

  private final List<CompletableFuture<ApiMessage>> calls = new CopyOnWriteArrayList<>();
  private final BlockingQueue<ByteBuf> responses = new LinkedBlockingQueue<>();
  private final EventLoopGroup group = new DefaultEventLoopGroup(2);
  private Channel server;
  private Channel serverSide;
  private Channel client;

  private void open() throws InterruptedException {
    ApiHandlers table = new ApiHandlers();
    table.register(new ControlledMetadata(calls));
    BrokerServices services = ControlledMetadata.services(MAX_FRAME);
    LocalAddress address = new LocalAddress("dispatcher-" + System.nanoTime());
    CountDownLatch accepted = new CountDownLatch(1);
    server =
        new ServerBootstrap()
            .group(group)
            .channel(LocalServerChannel.class)
            .childHandler(
                new ChannelInitializer<LocalChannel>() {
                  @Override
                  protected void initChannel(LocalChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new FrameDecoder(MAX_FRAME),
                            new RequestDecoder(table),
                            new ResponseEncoder(services.metrics()),
                            new RequestDispatcher(services, 100, 1 << 20));
                    serverSide = ch;
                    accepted.countDown();
                  }
                })
            .bind(address)
            .sync()
            .channel();
    client =
        new Bootstrap()
            .group(group)
            .channel(LocalChannel.class)
            .handler(
                new ChannelInitializer<LocalChannel>() {
                  @Override
                  protected void initChannel(LocalChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4),
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                responses.add((ByteBuf) msg);
                              }
                            });
                  }
                })
            .connect(address)
            .sync()
            .channel();
    assertTrue(accepted.await(5, TimeUnit.SECONDS));
  }

  @AfterEach
  void close() throws InterruptedException {
    if (client != null) {
      client.close().sync();
    }
    if (server != null) {
      server.close().sync();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    for (ByteBuf b; (b = responses.poll()) != null; ) {
      b.release();
    }
  }

  private void awaitCalls(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (calls.size() < n) {
      assertTrue(System.nanoTime() < deadline, "the handler saw " + calls.size() + " requests");
      Thread.sleep(1);
    }
  }

  private MetadataResponse nextResponse(int correlationId) throws InterruptedException {
    ByteBuf frame = responses.poll(5, TimeUnit.SECONDS);
    assertTrue(frame != null, "no response for correlation id " + correlationId);
    WireFrames.Response<MetadataResponse> r = WireFrames.response(frame, (short) 3, (short) 12);
    assertEquals(correlationId, r.correlationId());
    return r.body();
  }

  @Test
  void answersFinishedTogetherOnAnotherThreadLeaveInRequestOrder() throws Exception {
    open();
    for (int i = 1; i <= 5; i++) {
      client.writeAndFlush(WireFrames.request(i, (short) 12, new MetadataRequest()));
    }
    awaitCalls(5);
    // Hold the connection's event loop while another thread completes the five requests, out of
    // order, as one write of the group commit can: the event loop then finds all five answers at
    // once.
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    serverSide
        .eventLoop()
        .execute(
            () -> {
              holding.countDown();
              try {
                release.await(5, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    assertTrue(holding.await(5, TimeUnit.SECONDS));
    Thread writer =
        new Thread(
            () -> {
              for (int i : new int[] {1, 0, 2, 4, 3}) {
                calls.get(i).complete(new MetadataResponse().setClusterId("r" + i));
              }
            });
    writer.start();
    writer.join();
    release.countDown();
    for (int i = 0; i < 5; i++) {
      assertEquals("r" + i, nextResponse(i + 1).clusterId());
    }
    assertNull(responses.poll(20, TimeUnit.MILLISECONDS), "nothing else was answered");
  }

  @Test
  void answersFinishingOneByOneOnOtherThreadsAreEachWrittenAtOnce() throws Exception {
    open();
    for (int i = 1; i <= 3; i++) {
      client.writeAndFlush(WireFrames.request(i, (short) 12, new MetadataRequest()));
    }
    awaitCalls(3);
    for (int i = 0; i < 3; i++) {
      int n = i;
      Thread t =
          new Thread(() -> calls.get(n).complete(new MetadataResponse().setClusterId("one" + n)));
      t.start();
      t.join();
      assertEquals("one" + i, nextResponse(i + 1).clusterId());
      assertNull(responses.poll(20, TimeUnit.MILLISECONDS), "nothing else was answered");
    }
  }
}
