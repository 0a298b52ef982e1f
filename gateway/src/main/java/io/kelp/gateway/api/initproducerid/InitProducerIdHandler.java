package io.kelp.gateway.api.initproducerid;

import io.kelp.codec.message.InitProducerIdRequest;
import io.kelp.codec.message.InitProducerIdResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InitProducerId (key 22), versions 0-5, for idempotent producers: a fresh producer id (never
 * reused, even across restarts: ids are reserved from the store in blocks) with epoch 0. From v3 a
 * producer that sends its current id and epoch (the KIP-360 epoch bump librdkafka and Java do after
 * a sequence error) keeps its id with the epoch one higher, or gets a fresh id when the epoch would
 * pass Short.MAX_VALUE - 1; the partition logs then expect sequence 0 from it.
 *
 * <p>An empty transactional id is INVALID_REQUEST, as in Kafka.
 *
 * <p>Deviations: Kafka hands out a fresh id on every non-transactional request, bump included;
 * keeping the id is equivalent for clients, which reset their sequences either way. A non-empty
 * transactional id is INVALID_REQUEST too: transactions come later. FindCoordinator names this
 * broker for transactional ids, so a transactional producer gets here and fails at once with a
 * clear error (the Java producer: "Unexpected error in InitProducerIdResponse") instead of waiting
 * for a coordinator that never comes.
 */
public final class InitProducerIdHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(InitProducerIdHandler.class);

  /** Clients retry the refused request every few hundred ms: one log line per minute is enough. */
  private static final long REFUSAL_LOG_INTERVAL_NANOS = 60_000_000_000L;

  private final AtomicLong lastRefusalLog =
      new AtomicLong(System.nanoTime() - REFUSAL_LOG_INTERVAL_NANOS);

  @Override
  public short apiKey() {
    return 22;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    InitProducerIdRequest r = (InitProducerIdRequest) request;
    if (r.transactionalId() != null) {
      long now = System.nanoTime();
      long last = lastRefusalLog.get();
      if (now - last >= REFUSAL_LOG_INTERVAL_NANOS && lastRefusalLog.compareAndSet(last, now)) {
        LOG.warn(
            "InitProducerId for transactional id '{}' from client '{}' at {} refused with"
                + " INVALID_REQUEST: Kelp does not support transactions yet (logged at most once"
                + " a minute)",
            r.transactionalId(),
            ctx.clientId(),
            ctx.clientAddress());
      }
      return CompletableFuture.completedFuture(
          new InitProducerIdResponse()
              .setErrorCode(Errors.INVALID_REQUEST)
              .setProducerId(-1)
              .setProducerEpoch((short) -1));
    }
    if (ctx.apiVersion() >= 3 && r.producerId() >= 0 && r.producerEpoch() >= 0) {
      if (r.producerEpoch() < Short.MAX_VALUE - 1) {
        return CompletableFuture.completedFuture(
            new InitProducerIdResponse()
                .setProducerId(r.producerId())
                .setProducerEpoch((short) (r.producerEpoch() + 1)));
      }
    }
    BrokerServices b = ctx.broker();
    return Blocking.run(b.blocking(), () -> allocate(b));
  }

  private static InitProducerIdResponse allocate(BrokerServices b) {
    try {
      return new InitProducerIdResponse().setProducerId(b.producerIds().allocate());
    } catch (IOException e) {
      LOG.warn("Cannot reserve producer ids in the store", e);
      // Retriable for clients: they ask again.
      return new InitProducerIdResponse()
          .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE)
          .setProducerId(-1)
          .setProducerEpoch((short) -1);
    }
  }
}
