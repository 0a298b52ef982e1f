package io.kelp.gateway.api.deleterecords;

import io.kelp.codec.message.DeleteRecordsRequest;
import io.kelp.codec.message.DeleteRecordsRequest.DeleteRecordsPartition;
import io.kelp.codec.message.DeleteRecordsRequest.DeleteRecordsTopic;
import io.kelp.codec.message.DeleteRecordsResponse;
import io.kelp.codec.message.DeleteRecordsResponse.DeleteRecordsPartitionResult;
import io.kelp.codec.message.DeleteRecordsResponse.DeleteRecordsTopicResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.DeleteRecordsResult;
import io.kelp.engine.log.PartitionLog;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.AppendedWrites;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DeleteRecords (key 21), versions 0-2: moves each partition's log start offset up to the given
 * offset (-1 means the high watermark), durably, and reports the new low watermark. An offset past
 * the high watermark, or negative other than -1, is OFFSET_OUT_OF_RANGE; an offset below the
 * current start leaves it where it is. The request timeout is not used: the move is durable before
 * the response.
 */
public final class DeleteRecordsHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(DeleteRecordsHandler.class);

  @Override
  public short apiKey() {
    return 21;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    DeleteRecordsRequest r = (DeleteRecordsRequest) request;
    BrokerServices b = ctx.broker();
    List<PartitionLog> logs = new ArrayList<>();
    for (DeleteRecordsTopic t : r.topics()) {
      b.topics()
          .get(t.name())
          .ifPresent(topic -> t.partitions().forEach(p -> logs.add(topic.log(p.partitionIndex()))));
    }
    // Records may be deleted up to the high watermark, which counts every acknowledged record.
    return AppendedWrites.await(logs)
        .thenCompose(written -> Blocking.run(b.blocking(), () -> respond(b, r)));
  }

  private DeleteRecordsResponse respond(BrokerServices b, DeleteRecordsRequest r) {
    DeleteRecordsResponse response = new DeleteRecordsResponse();
    for (DeleteRecordsTopic t : r.topics()) {
      DeleteRecordsTopicResult topicResult = new DeleteRecordsTopicResult().setName(t.name());
      Optional<LiveTopic> topic = b.topics().get(t.name());
      for (DeleteRecordsPartition p : t.partitions()) {
        DeleteRecordsPartitionResult out =
            new DeleteRecordsPartitionResult().setPartitionIndex(p.partitionIndex());
        PartitionLog log = topic.map(x -> x.log(p.partitionIndex())).orElse(null);
        if (log == null) {
          out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION).setLowWatermark(-1);
        } else {
          delete(log, p.offset(), out);
        }
        topicResult.partitions().add(out);
      }
      response.topics().add(topicResult);
    }
    return response;
  }

  private static void delete(PartitionLog log, long offset, DeleteRecordsPartitionResult out) {
    long hw = log.highWatermark();
    long target = offset == -1 ? hw : offset;
    if (target < 0 || target > hw) {
      out.setErrorCode(Errors.OFFSET_OUT_OF_RANGE).setLowWatermark(-1);
      return;
    }
    if (target <= log.logStartOffset()) {
      out.setLowWatermark(log.logStartOffset());
      return;
    }
    try {
      DeleteRecordsResult result = log.deleteRecordsBefore(target);
      if (result.ok()) {
        out.setLowWatermark(result.logStartOffset());
      } else {
        out.setErrorCode(Errors.OFFSET_OUT_OF_RANGE).setLowWatermark(-1);
      }
    } catch (RuntimeException e) {
      LOG.warn("DeleteRecords on {} failed", log.topicPartition(), e);
      out.setErrorCode(Errors.KAFKA_STORAGE_ERROR).setLowWatermark(-1);
    }
  }
}
