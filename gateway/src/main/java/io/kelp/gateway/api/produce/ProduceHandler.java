package io.kelp.gateway.api.produce;

import io.kelp.codec.message.ProduceRequest;
import io.kelp.codec.message.ProduceRequest.PartitionProduceData;
import io.kelp.codec.message.ProduceRequest.TopicProduceData;
import io.kelp.codec.message.ProduceResponse;
import io.kelp.codec.message.ProduceResponse.BatchIndexAndErrorMessage;
import io.kelp.codec.message.ProduceResponse.PartitionProduceResponse;
import io.kelp.codec.message.ProduceResponse.TopicProduceResponse;
import io.kelp.codec.record.RecordBatch;
import io.kelp.codec.record.RecordBatches;
import io.kelp.codec.record.ValidationResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.AppendOptions;
import io.kelp.engine.log.AppendResult;
import io.kelp.engine.log.PartitionLog;
import io.kelp.engine.log.ProduceConnection;
import io.kelp.engine.store.FencedException;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Produce (key 0). Advertises 0-11 but serves 3-11: v0-2 (message sets) are advertised only because
 * librdkafka before 2.11.1 disables compression without them, and a v0-2 request closes the
 * connection, as Kafka 4 does.
 *
 * <p>Per partition: unknown topic or partition, then the codec's batch checks (one magic-2 batch,
 * lengths, CRC, record count, max.message.bytes: CORRUPT_MESSAGE, INVALID_RECORD or
 * MESSAGE_TOO_LARGE as Kafka), then the records themselves (compressed ones inflated up to {@code
 * max.uncompressed.batch.bytes}; CreateTime timestamps within
 * message.timestamp.before/after.max.ms, else INVALID_TIMESTAMP; keys on compacted topics), then
 * the append. The log's outcome maps to Kafka's codes: a duplicate is success with the original
 * offsets, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, UNKNOWN_PRODUCER_ID,
 * NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR. A bad batch fails only its partition.
 *
 * <p>acks=1 answers once the batches are appended (in memory); acks=-1 once they are durable in the
 * store, or REQUEST_TIMED_OUT for those not durable within timeout_ms; acks=0 gets no response, and
 * the connection is closed if any partition failed, as Kafka does, so the client refreshes its
 * metadata. Other acks values are INVALID_REQUIRED_ACKS. Validation runs on the network thread; the
 * append does not block.
 *
 * <p>Deviation: transactions come later, so a request with a transactional id, or a transactional
 * batch, is answered with INVALID_TXN_STATE for each partition.
 */
public final class ProduceHandler implements ApiHandler {
  private static final short ACKS_NONE = 0;
  private static final short ACKS_LEADER = 1;
  private static final short ACKS_ALL = -1;

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

  /** A partition whose response waits for its batches to be durable (acks=-1). */
  private record Pending(PartitionProduceResponse response, CompletableFuture<Void> durable) {}

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    ProduceRequest r = (ProduceRequest) request;
    BrokerServices b = ctx.broker();
    short acks = r.acks();
    short requestError = Errors.NONE;
    String requestMessage = null;
    if (acks != ACKS_NONE && acks != ACKS_LEADER && acks != ACKS_ALL) {
      requestError = Errors.INVALID_REQUIRED_ACKS;
      requestMessage = "acks must be 0, 1 or -1, not " + acks;
    } else if (r.transactionalId() != null) {
      requestError = Errors.INVALID_TXN_STATE;
      requestMessage = "Kelp does not support transactions yet";
    }
    long now = b.nowMs();
    // Tells the flusher, before the appends, that this request's answer will wait for them.
    ProduceConnection connection =
        acks == ACKS_ALL && requestError == Errors.NONE
            ? ctx.produceConnection()
            : ProduceConnection.NONE;
    connection.requestArrived();
    ProduceResponse response = new ProduceResponse();
    List<Pending> pending = new ArrayList<>();
    boolean anyError = false;
    for (TopicProduceData t : r.topicData()) {
      TopicProduceResponse topicOut = new TopicProduceResponse().setName(t.name());
      LiveTopic topic = b.topics().get(t.name()).orElse(null);
      for (PartitionProduceData p : t.partitionData()) {
        PartitionProduceResponse out = new PartitionProduceResponse().setIndex(p.index());
        if (requestError != Errors.NONE) {
          fail(out, requestError, requestMessage);
        } else {
          CompletableFuture<Void> durable = append(ctx, topic, p, now, acks == ACKS_ALL, out);
          if (durable != null && acks == ACKS_ALL) {
            pending.add(new Pending(out, durable));
          }
        }
        anyError |= out.errorCode() != Errors.NONE;
        topicOut.partitionResponses().add(out);
      }
      response.responses().add(topicOut);
    }
    connection.requestAppended();
    if (acks == ACKS_NONE) {
      if (anyError) {
        ctx.closeConnectionAfterResponse();
      }
      return CompletableFuture.completedFuture(null);
    }
    if (pending.isEmpty()) {
      connection.requestAnswered();
      return CompletableFuture.completedFuture(response);
    }
    return awaitDurable(ctx, response, pending, r.timeoutMs(), connection);
  }

  /**
   * Validates and appends one partition's records, filling in {@code out}. Returns the future of
   * their durability when they were appended, else null. {@code awaited}: the answer waits for that
   * future (acks=all).
   */
  private CompletableFuture<Void> append(
      RequestContext ctx,
      LiveTopic topic,
      PartitionProduceData p,
      long now,
      boolean awaited,
      PartitionProduceResponse out) {
    PartitionLog log = topic == null ? null : topic.log(p.index());
    if (log == null) {
      fail(out, Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this partition.");
      return null;
    }
    String where = topic.name() + "-" + p.index();
    ByteBuf records = p.records();
    if (records == null) {
      fail(out, Errors.INVALID_RECORD, "No records for " + where);
      return null;
    }
    ValidationResult valid =
        RecordBatches.validateForProduce(
            records, ctx.apiVersion(), topic.config().maxMessageBytes());
    if (!valid.isValid()) {
      fail(out, valid.kafkaErrorCode(), valid.message() + " in " + where);
      return null;
    }
    RecordBatch batch = valid.batch();
    if (batch.isTransactional()) {
      fail(out, Errors.INVALID_TXN_STATE, "Kelp does not support transactions yet");
      return null;
    }
    RecordChecks.Failure failure =
        RecordChecks.check(
            batch, topic.config(), now, ctx.broker().config().maxUncompressedBatchBytes(), where);
    if (failure != null) {
      fail(out, failure.errorCode(), failure.message());
      out.recordErrors()
          .add(
              new BatchIndexAndErrorMessage()
                  .setBatchIndex(failure.recordIndex())
                  .setBatchIndexErrorMessage(failure.message()));
      return null;
    }
    AppendResult result = log.append(records, new AppendOptions(now, awaited));
    switch (result.status()) {
      case OK, DUPLICATE -> {
        out.setBaseOffset(result.baseOffset())
            .setLogAppendTimeMs(topic.config().logAppendTime() ? result.logAppendTime() : -1)
            .setLogStartOffset(result.logStartOffset());
        return result.durable();
      }
      case OUT_OF_ORDER_SEQUENCE ->
          fail(out, Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, result.message());
      case INVALID_PRODUCER_EPOCH -> fail(out, Errors.INVALID_PRODUCER_EPOCH, result.message());
      case UNKNOWN_PRODUCER_ID -> fail(out, Errors.UNKNOWN_PRODUCER_ID, result.message());
      case INVALID_RECORD -> fail(out, Errors.INVALID_RECORD, result.message());
      case NOT_OWNER -> fail(out, Errors.NOT_LEADER_OR_FOLLOWER, result.message());
      case STORE_ERROR -> fail(out, Errors.KAFKA_STORAGE_ERROR, result.message());
    }
    return null;
  }

  /** Completes with the response once every pending partition is durable or the timeout passes. */
  private static CompletableFuture<ApiMessage> awaitDurable(
      RequestContext ctx,
      ProduceResponse response,
      List<Pending> pending,
      int timeoutMs,
      ProduceConnection connection) {
    CompletableFuture<ApiMessage> result = new CompletableFuture<>();
    AtomicBoolean finished = new AtomicBoolean();
    CompletableFuture<?>[] all = new CompletableFuture<?>[pending.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = pending.get(i).durable();
    }
    ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
    Runnable finish =
        () -> {
          if (!finished.compareAndSet(false, true)) {
            return;
          }
          if (timer[0] != null) {
            timer[0].cancel(false);
          }
          connection.requestAnswered();
          for (Pending p : pending) {
            settle(p);
          }
          result.complete(response);
        };
    timer[0] = ctx.eventLoop().schedule(finish, Math.max(0, timeoutMs), TimeUnit.MILLISECONDS);
    CompletableFuture.allOf(all).whenComplete((x, e) -> finish.run());
    return result;
  }

  /** Turns a partition's durability outcome, as it stands now, into its response. */
  private static void settle(Pending p) {
    CompletableFuture<Void> durable = p.durable();
    if (!durable.isDone()) {
      fail(p.response(), Errors.REQUEST_TIMED_OUT, "Records were not durable within the timeout");
      return;
    }
    try {
      durable.join();
    } catch (CompletionException | CancellationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      short code = Errors.KAFKA_STORAGE_ERROR;
      for (Throwable t = cause; t != null; t = t.getCause()) {
        if (t instanceof FencedException) {
          code = Errors.NOT_LEADER_OR_FOLLOWER;
        }
      }
      fail(p.response(), code, "Records could not be made durable: " + cause.getMessage());
    }
  }

  private static void fail(PartitionProduceResponse out, short code, String message) {
    out.setErrorCode(code)
        .setErrorMessage(message)
        .setBaseOffset(-1)
        .setLogAppendTimeMs(-1)
        .setLogStartOffset(-1);
  }
}
