package io.kelp.gateway.api.listoffsets;

import io.kelp.codec.message.ListOffsetsRequest;
import io.kelp.codec.message.ListOffsetsRequest.ListOffsetsPartition;
import io.kelp.codec.message.ListOffsetsRequest.ListOffsetsTopic;
import io.kelp.codec.message.ListOffsetsResponse;
import io.kelp.codec.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import io.kelp.codec.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.PartitionLog;
import io.kelp.engine.log.TimestampOffset;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.AppendedWrites;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ListOffsets (key 2), versions 1-7. Per partition: -2 is the log start offset, -1 the high
 * watermark (the last stable offset for read_committed, v2+), -3 (v7) the record with the largest
 * timestamp, and any other timestamp the first offset whose record timestamp is at or after it,
 * below the visible end (none: offset and timestamp -1). The current leader epoch (v4+) is checked
 * (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH) and the log's leader epoch is returned; a partition
 * named twice is INVALID_REQUEST. Runs on the blocking executor: time lookups may read the store.
 * Records acknowledged but not yet written (acks=0/1 data held for a larger write) are written
 * first, so that every answer counts them, as Kafka's leader does once it has answered.
 *
 * <p>Deviation: the leader epoch returned is the current one for every offset. Every offset
 * returned lies below the end of the current epoch, so client validation with it always passes.
 */
public final class ListOffsetsHandler implements ApiHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ListOffsetsHandler.class);
  static final long LATEST = -1;
  static final long EARLIEST = -2;
  static final long MAX_TIMESTAMP = -3;
  private static final byte READ_COMMITTED = 1;

  @Override
  public short apiKey() {
    return 2;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 7;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    ListOffsetsRequest r = (ListOffsetsRequest) request;
    BrokerServices b = ctx.broker();
    List<PartitionLog> logs = new ArrayList<>();
    for (ListOffsetsTopic t : r.topics()) {
      Optional<LiveTopic> topic = b.topics().get(t.name());
      for (ListOffsetsPartition p : t.partitions()) {
        if (topic.isPresent() && p.timestamp() != EARLIEST) {
          logs.add(topic.get().log(p.partitionIndex()));
        }
      }
    }
    // The end and the time lookups count every acknowledged record, as Kafka's do.
    return AppendedWrites.await(logs)
        .thenCompose(written -> Blocking.run(b.blocking(), () -> respond(b, ctx.apiVersion(), r)));
  }

  private ListOffsetsResponse respond(BrokerServices b, short v, ListOffsetsRequest r) {
    boolean committed = v >= 2 && r.isolationLevel() == READ_COMMITTED;
    Set<String> seen = new HashSet<>();
    Set<String> duplicates = new HashSet<>();
    for (ListOffsetsTopic t : r.topics()) {
      for (ListOffsetsPartition p : t.partitions()) {
        String key = t.name() + "-" + p.partitionIndex();
        if (!seen.add(key)) {
          duplicates.add(key);
        }
      }
    }
    ListOffsetsResponse response = new ListOffsetsResponse();
    for (ListOffsetsTopic t : r.topics()) {
      ListOffsetsTopicResponse topicOut = new ListOffsetsTopicResponse().setName(t.name());
      Optional<LiveTopic> topic = b.topics().get(t.name());
      for (ListOffsetsPartition p : t.partitions()) {
        ListOffsetsPartitionResponse out =
            new ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex());
        PartitionLog log = topic.map(x -> x.log(p.partitionIndex())).orElse(null);
        if (duplicates.contains(t.name() + "-" + p.partitionIndex())) {
          out.setErrorCode(Errors.INVALID_REQUEST);
        } else if (log == null) {
          out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        } else {
          try {
            lookup(log, v, p, committed, out);
          } catch (java.io.UncheckedIOException e) {
            // A time lookup had to read the store and the read failed.
            LOG.warn(
                "ListOffsets {}-{}: store read failed: {}",
                t.name(),
                p.partitionIndex(),
                e.getMessage());
            out.setErrorCode(Errors.KAFKA_STORAGE_ERROR).setOffset(-1).setTimestamp(-1);
          }
        }
        topicOut.partitions().add(out);
      }
      response.topics().add(topicOut);
    }
    return response;
  }

  private static void lookup(
      PartitionLog log,
      short v,
      ListOffsetsPartition p,
      boolean committed,
      ListOffsetsPartitionResponse out) {
    int epoch = log.leaderEpoch();
    short epochError = Errors.checkLeaderEpoch(v >= 4 ? p.currentLeaderEpoch() : -1, epoch);
    if (epochError != Errors.NONE) {
      out.setErrorCode(epochError);
      return;
    }
    long visibleEnd = committed ? log.lastStableOffset() : log.highWatermark();
    long ts = p.timestamp();
    if (ts == EARLIEST) {
      out.setOffset(log.logStartOffset()).setTimestamp(-1).setLeaderEpoch(epoch);
    } else if (ts == LATEST) {
      out.setOffset(visibleEnd).setTimestamp(-1).setLeaderEpoch(epoch);
    } else if (ts == MAX_TIMESTAMP && v >= 7) {
      found(log.maxTimestamp(), visibleEnd, epoch, out);
    } else if (ts < 0) {
      out.setOffset(-1).setTimestamp(-1);
    } else {
      found(log.offsetForTimestamp(ts), visibleEnd, epoch, out);
    }
  }

  private static void found(
      Optional<TimestampOffset> hit, long visibleEnd, int epoch, ListOffsetsPartitionResponse out) {
    if (hit.isPresent() && hit.get().offset() < visibleEnd) {
      out.setOffset(hit.get().offset()).setTimestamp(hit.get().timestamp()).setLeaderEpoch(epoch);
    } else {
      out.setOffset(-1).setTimestamp(-1);
    }
  }
}
