package io.kelp.gateway.pipeline;

import io.kelp.gateway.api.ApiHandlers;
import io.kelp.gateway.api.BrokerServices;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Builds each client connection's pipeline: flush consolidation, frame decoder, request decoder,
 * response encoder (shared), dispatcher.
 */
public final class KafkaChannelInitializer extends ChannelInitializer<Channel> {
  private final ApiHandlers handlers;
  private final BrokerServices broker;
  private final ResponseEncoder encoder;
  private final ChannelGroup channels;

  public KafkaChannelInitializer(
      ApiHandlers handlers, BrokerServices broker, ChannelGroup channels) {
    this.handlers = handlers;
    this.broker = broker;
    this.encoder = new ResponseEncoder(broker.metrics());
    this.channels = channels;
  }

  @Override
  protected void initChannel(Channel ch) {
    channels.add(ch);
    ch.pipeline()
        .addLast("flush", new FlushConsolidationHandler(256, true))
        .addLast("frames", new FrameDecoder(broker.config().socketRequestMaxBytes()))
        .addLast("requests", new RequestDecoder(handlers))
        .addLast("responses", encoder)
        .addLast(
            "dispatcher",
            new RequestDispatcher(
                broker,
                broker.config().connectionMaxInflightRequests(),
                broker.config().connectionMaxInflightBytes()));
  }
}
