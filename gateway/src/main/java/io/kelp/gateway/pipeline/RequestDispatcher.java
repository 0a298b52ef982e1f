package io.kelp.gateway.pipeline;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.ProduceConnection;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.RequestContext;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the handler of each request and writes the responses in the order the requests arrived,
 * whatever order the handlers finish in: each request takes a place in a per-connection queue, and
 * only finished requests at its head are written. A request answered with no response (Produce with
 * acks=0) still holds its place until it finishes, then is skipped.
 *
 * <p>Backpressure: the connection stops being read while it has too many requests or bytes in
 * flight, while its socket is not writable, or while the engine is over its memory budget.
 *
 * <p>Buffer ownership: owns each request's frame until its handler finishes, then releases it;
 * hands response buffers to the encoder, or releases them if the connection has closed.
 */
public final class RequestDispatcher extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);
  private static final short PRODUCE_KEY = 0;

  private final BrokerServices broker;
  private final int maxInflightRequests;
  private final long maxInflightBytes;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private ReadGate gate;
  private long inflightBytes;
  private boolean closed;
  private boolean waitingForMemory;

  /** This connection as the engine's flusher knows it; opened by the first produce at acks=all. */
  private ProduceConnection produceConnection;

  /** A request in progress, holding its place in the response order. */
  private static final class Pending {
    final InboundRequest request;
    final RequestContext context;
    boolean done;
    ApiMessage response;
    Throwable failure;

    Pending(InboundRequest request, RequestContext context) {
      this.request = request;
      this.context = context;
    }
  }

  public RequestDispatcher(BrokerServices broker, int maxInflightRequests, long maxInflightBytes) {
    this.broker = broker;
    this.maxInflightRequests = maxInflightRequests;
    this.maxInflightBytes = maxInflightBytes;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.gate = new ReadGate(ctx.channel());
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    broker.metrics().connectionOpened();
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof InboundRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (closed) {
      request.frame().release();
      return;
    }
    broker.metrics().bytesIn(request.frameBytes() + 4L);
    RequestContext context =
        new RequestContext(
            request.header(),
            request.responseVersion(),
            ctx.channel().remoteAddress(),
            broker,
            ctx.executor(),
            this::produceConnection);
    Pending pending = new Pending(request, context);
    queue.addLast(pending);
    inflightBytes += request.frameBytes();
    updateInflightGate();
    if (request.api().apiKey() == PRODUCE_KEY) {
      checkMemory();
    }
    CompletableFuture<ApiMessage> future;
    try {
      future = request.handler().handle(context, request.body());
    } catch (RuntimeException e) {
      future = CompletableFuture.failedFuture(e);
    }
    future.whenComplete((response, failure) -> onComplete(pending, response, failure));
  }

  private ProduceConnection produceConnection() {
    if (produceConnection == null) {
      // No engine: a pipeline run on its own, with test handlers.
      produceConnection =
          closed || broker.engine() == null
              ? ProduceConnection.NONE
              : broker.engine().openProduceConnection();
    }
    return produceConnection;
  }

  private void onComplete(Pending pending, ApiMessage response, Throwable failure) {
    if (ctx.executor().inEventLoop()) {
      complete(pending, response, failure);
      return;
    }
    try {
      ctx.executor().execute(() -> complete(pending, response, failure));
    } catch (RejectedExecutionException e) {
      // The event loop is shutting down with the connection: nothing will be written.
      pending.request.frame().release();
      release(pending.context);
    }
  }

  private void complete(Pending pending, ApiMessage response, Throwable failure) {
    pending.done = true;
    pending.response = response;
    pending.failure = failure;
    pending.request.frame().release();
    if (failure != null) {
      LOG.warn(
          "{} v{} from {} failed; closing the connection",
          pending.request.api(),
          pending.request.header().apiVersion(),
          ctx.channel().remoteAddress(),
          failure);
    }
    drain();
  }

  /** Writes the finished responses at the head of the queue, in arrival order. */
  private void drain() {
    boolean wrote = false;
    boolean close = false;
    while (!queue.isEmpty() && queue.peekFirst().done) {
      Pending head = queue.pollFirst();
      inflightBytes -= head.request.frameBytes();
      broker
          .metrics()
          .request(
              head.request.api().apiKey(),
              head.request.api().name(),
              System.nanoTime() - head.request.arrivalNanos());
      if (closed || close || head.failure != null || head.response == null) {
        release(head.context);
        close |= head.failure != null;
      } else {
        ctx.write(
            new OutboundResponse(
                head.request.header().correlationId(),
                head.request.api(),
                head.request.responseVersion(),
                head.response,
                head.context.takeOwned()));
        wrote = true;
      }
      close |= head.context.closeConnectionRequested();
    }
    if (close && !closed) {
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    } else if (wrote) {
      ctx.flush();
    }
    updateInflightGate();
  }

  private static void release(RequestContext context) {
    for (ReferenceCounted r : context.takeOwned()) {
      r.release();
    }
  }

  private void updateInflightGate() {
    gate.set(
        ReadGate.IN_FLIGHT,
        queue.size() >= maxInflightRequests || inflightBytes >= maxInflightBytes);
  }

  private void checkMemory() {
    // No engine: a pipeline run on its own, with test handlers.
    if (waitingForMemory || broker.engine() == null || !broker.engine().overMemoryBudget()) {
      return;
    }
    waitingForMemory = true;
    gate.set(ReadGate.MEMORY, true);
    broker
        .engine()
        .whenMemoryAvailable(
            () -> {
              try {
                ctx.executor().execute(this::memoryAvailable);
              } catch (RejectedExecutionException e) {
                // shutting down
              }
            });
  }

  private void memoryAvailable() {
    waitingForMemory = false;
    gate.set(ReadGate.MEMORY, false);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    gate.set(ReadGate.UNWRITABLE, !ctx.channel().isWritable());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    broker.metrics().connectionClosed();
    if (produceConnection != null) {
      produceConnection.close();
    }
    // Finished requests still queued behind unfinished ones are dropped now; unfinished ones
    // release their buffers when they finish.
    for (Pending p : queue) {
      if (p.done) {
        release(p.context);
      }
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      LOG.debug("Connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    } else {
      LOG.warn("Closing connection from {}", ctx.channel().remoteAddress(), cause);
    }
    ctx.close();
  }
}
