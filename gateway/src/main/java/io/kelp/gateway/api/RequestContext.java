package io.kelp.gateway.api;

import io.kelp.codec.wire.RequestHeader;
import io.kelp.engine.log.ProduceConnection;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.EventExecutor;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One request as a handler sees it: its header and version, who sent it, the broker's services, and
 * the connection's event loop for timers.
 *
 * <p>Buffer ownership: buffers a handler puts into its response (Fetch records) are handed to the
 * context with {@link #releaseAfterResponse}; the pipeline releases them once the response is
 * written, or dropped because the connection closed.
 */
public final class RequestContext {
  private final RequestHeader header;
  private final short responseVersion;
  private final SocketAddress clientAddress;
  private final BrokerServices broker;
  private final EventExecutor eventLoop;
  private final Supplier<ProduceConnection> produceConnection;
  private final List<ReferenceCounted> owned = new ArrayList<>(0);
  private volatile boolean closeConnection;

  public RequestContext(
      RequestHeader header,
      short responseVersion,
      SocketAddress clientAddress,
      BrokerServices broker,
      EventExecutor eventLoop) {
    this(header, responseVersion, clientAddress, broker, eventLoop, () -> ProduceConnection.NONE);
  }

  /**
   * @param produceConnection the connection as the engine's flusher knows it, opened on first use
   */
  public RequestContext(
      RequestHeader header,
      short responseVersion,
      SocketAddress clientAddress,
      BrokerServices broker,
      EventExecutor eventLoop,
      Supplier<ProduceConnection> produceConnection) {
    this.header = header;
    this.responseVersion = responseVersion;
    this.clientAddress = clientAddress;
    this.broker = broker;
    this.eventLoop = eventLoop;
    this.produceConnection = produceConnection;
  }

  public RequestHeader header() {
    return header;
  }

  /** The version the client sent. */
  public short apiVersion() {
    return header.apiVersion();
  }

  /** The version the response is written at: the request's, except for ApiVersions fallback. */
  public short responseVersion() {
    return responseVersion;
  }

  public String clientId() {
    return header.clientId();
  }

  public SocketAddress clientAddress() {
    return clientAddress;
  }

  public BrokerServices broker() {
    return broker;
  }

  /** The connection's event loop: schedule timeouts here; never block it. */
  public EventExecutor eventLoop() {
    return eventLoop;
  }

  /**
   * This connection as the engine's flusher knows it: a produce request that waits for durability
   * tells it when its appends are queued and when it is answered. Call on the event loop.
   */
  public ProduceConnection produceConnection() {
    return produceConnection.get();
  }

  /** Hands a buffer in the response to the pipeline, which releases it after writing. */
  public void releaseAfterResponse(ReferenceCounted buffer) {
    synchronized (owned) {
      owned.add(buffer);
    }
  }

  /** Takes the buffers handed over so far; the caller releases them. */
  public List<ReferenceCounted> takeOwned() {
    synchronized (owned) {
      List<ReferenceCounted> out = new ArrayList<>(owned);
      owned.clear();
      return out;
    }
  }

  /**
   * Asks the pipeline to close the connection once the responses before this one are written (Kafka
   * closes after an acks=0 produce fails, so the client refreshes its metadata).
   */
  public void closeConnectionAfterResponse() {
    closeConnection = true;
  }

  public boolean closeConnectionRequested() {
    return closeConnection;
  }

  @Override
  public String toString() {
    return header + " from " + clientAddress;
  }
}
