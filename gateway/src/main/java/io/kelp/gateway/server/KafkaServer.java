package io.kelp.gateway.server;

import io.kelp.gateway.api.ApiHandlers;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.pipeline.KafkaChannelInitializer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka listener: one acceptor thread, {@code network.threads} connection threads, epoll when
 * the native transport loads and NIO otherwise.
 */
public final class KafkaServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaServer.class);

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ChannelGroup channels;
  private final Channel serverChannel;

  private KafkaServer(
      EventLoopGroup boss, EventLoopGroup workers, ChannelGroup channels, Channel serverChannel) {
    this.boss = boss;
    this.workers = workers;
    this.channels = channels;
    this.serverChannel = serverChannel;
  }

  /**
   * Binds the listener; throws a {@link BindException} naming the address if it cannot be bound.
   */
  public static KafkaServer start(BrokerConfig config, ApiHandlers handlers, BrokerServices broker)
      throws InterruptedException, IOException {
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> channelType =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    EventLoopGroup boss =
        new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("kelp-accept", true), io);
    EventLoopGroup workers =
        new MultiThreadIoEventLoopGroup(
            config.networkThreads(), new DefaultThreadFactory("kelp-network", true), io);
    ChannelGroup channels = new DefaultChannelGroup("kafka-clients", GlobalEventExecutor.INSTANCE);
    try {
      ServerBootstrap bootstrap =
          new ServerBootstrap()
              .group(boss, workers)
              .channel(channelType)
              .option(ChannelOption.SO_BACKLOG, 1024)
              .option(ChannelOption.SO_REUSEADDR, true)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
              .childOption(
                  ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 8 << 20))
              .childHandler(new KafkaChannelInitializer(handlers, broker, channels));
      HostPort listen = config.listen();
      ChannelFuture bound = bootstrap.bind(listen.host(), listen.port()).await();
      if (!bound.isSuccess()) {
        throw new BindException(
            "cannot listen for Kafka clients on "
                + listen
                + " (--listen, listen): "
                + bound.cause().getMessage());
      }
      Channel server = bound.channel();
      LOG.info("Listening on {} with {} transport", listen, epoll ? "epoll" : "NIO");
      return new KafkaServer(boss, workers, channels, server);
    } catch (InterruptedException | IOException | RuntimeException e) {
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** The bound address, with the real port when port 0 was asked for. */
  public HostPort boundAddress(HostPort listen) {
    InetSocketAddress a = (InetSocketAddress) serverChannel.localAddress();
    return new HostPort(listen.host(), a.getPort());
  }

  /** Stops accepting, closes every connection and stops the network threads. */
  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
