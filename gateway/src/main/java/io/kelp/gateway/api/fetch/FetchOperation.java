package io.kelp.gateway.api.fetch;

import io.kelp.codec.message.FetchRequest;
import io.kelp.codec.message.FetchResponse;
import io.kelp.codec.message.FetchResponse.AbortedTransaction;
import io.kelp.codec.message.FetchResponse.FetchableTopicResponse;
import io.kelp.codec.message.FetchResponse.PartitionData;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.Isolation;
import io.kelp.engine.log.PartitionLog;
import io.kelp.engine.log.ReadResult;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Fetch request in progress: reads every requested partition on the fetch executor and either
 * answers, or (long poll) waits for a high watermark to move or max_wait_ms to pass and reads
 * again. At most one read pass runs at a time; wake-ups during a pass make it run once more.
 *
 * <p>Buffer ownership: records read in a pass that is not answered are released before waiting;
 * records in the answer are handed to the request context, which releases them after writing.
 */
final class FetchOperation {
  private static final Logger LOG = LoggerFactory.getLogger(FetchOperation.class);
  private static final byte READ_COMMITTED = 1;

  private final RequestContext ctx;
  private final FetchRequest request;
  private final short version;
  private final Isolation isolation;
  private final List<Slot> slots = new ArrayList<>();
  private final CompletableFuture<ApiMessage> result = new CompletableFuture<>();
  private final List<AutoCloseable> listeners = new ArrayList<>();
  private ScheduledFuture<?> timer;
  private volatile boolean expired;
  private boolean running;
  private boolean rerun;
  private boolean finished;

  /** One requested partition: where to read, or why it cannot be read. */
  private record Slot(
      String topic,
      int partition,
      PartitionLog log,
      short error,
      FetchRequest.FetchPartition ask) {}

  /** The result of one read pass over every slot. */
  private record Pass(
      List<PartitionData> partitions, List<ReadResult> reads, long bytes, boolean error) {
    void release() {
      for (ReadResult r : reads) {
        r.records().release();
      }
    }
  }

  FetchOperation(RequestContext ctx, FetchRequest request) {
    this.ctx = ctx;
    this.request = request;
    this.version = ctx.apiVersion();
    this.isolation =
        request.isolationLevel() == READ_COMMITTED
            ? Isolation.READ_COMMITTED
            : Isolation.READ_UNCOMMITTED;
    for (FetchRequest.FetchTopic t : request.topics()) {
      LiveTopic topic = ctx.broker().topics().get(t.topic()).orElse(null);
      for (FetchRequest.FetchPartition p : t.partitions()) {
        PartitionLog log = topic == null ? null : topic.log(p.partition());
        short error = log == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.NONE;
        if (error == Errors.NONE) {
          error =
              Errors.checkLeaderEpoch(
                  version >= 9 ? p.currentLeaderEpoch() : -1, log.leaderEpoch());
        }
        slots.add(new Slot(t.topic(), p.partition(), log, error, p));
      }
    }
  }

  CompletableFuture<ApiMessage> start() {
    if (!canWait()) {
      askForUnwritten();
    }
    if (ctx.eventLoop().inEventLoop() && answerFromMemory()) {
      return result;
    }
    if (canWait()) {
      Map<PartitionLog, Boolean> seen = new IdentityHashMap<>();
      for (Slot s : slots) {
        if (s.log() != null && seen.put(s.log(), Boolean.TRUE) == null) {
          listeners.add(s.log().onHighWatermark(this::wake));
        }
      }
      timer = ctx.eventLoop().schedule(this::expire, request.maxWaitMs(), TimeUnit.MILLISECONDS);
    }
    submit();
    return result;
  }

  /**
   * Answers at once, on the network thread, when every partition's data is in memory and the answer
   * need not wait; most fetches of consumers that keep up (or that read-ahead keeps ahead of) end
   * here, without a hand-off to the blocking executor.
   */
  private boolean answerFromMemory() {
    Pass pass;
    try {
      pass = readAll(true);
    } catch (RuntimeException e) {
      return false;
    }
    if (pass == null) {
      return false;
    }
    if (!canWait() || pass.error() || pass.bytes() >= request.minBytes()) {
      finish(pass, null);
      return true;
    }
    pass.release();
    return false;
  }

  /**
   * A fetch that does not wait but reads at the high watermark while acknowledged records are not
   * yet written (data nothing waited for, held for a larger write) asks for them to be written now,
   * so that the consumer's next fetch gets them.
   */
  private void askForUnwritten() {
    for (Slot s : slots) {
      PartitionLog log = s.log();
      if (log != null
          && s.error() == Errors.NONE
          && s.ask().fetchOffset() >= log.highWatermark()
          && log.logEndOffset() > log.highWatermark()) {
        log.appendedWritten();
      }
    }
  }

  private boolean canWait() {
    return request.maxWaitMs() > 0 && request.minBytes() > 0 && !slots.isEmpty();
  }

  private void wake() {
    submit();
  }

  private void expire() {
    expired = true;
    submit();
  }

  private void submit() {
    synchronized (this) {
      if (finished) {
        return;
      }
      if (running) {
        rerun = true;
        return;
      }
      running = true;
    }
    try {
      ctx.broker().fetchReads().execute(this::run);
    } catch (RejectedExecutionException e) {
      finish(null, e);
    }
  }

  private void run() {
    while (true) {
      boolean last = expired || !canWait();
      Pass pass;
      try {
        pass = readAll(false);
      } catch (RuntimeException e) {
        finish(null, e);
        return;
      }
      if (last || pass.error() || pass.bytes() >= request.minBytes()) {
        finish(pass, null);
        return;
      }
      pass.release();
      synchronized (this) {
        if (finished) {
          return;
        }
        if (!rerun) {
          running = false;
          return;
        }
        rerun = false;
      }
    }
  }

  /**
   * Reads every slot once. With {@code memoryOnly}, reads only what is in memory and returns null
   * (having released what it read) as soon as a partition would need the store.
   */
  private Pass readAll(boolean memoryOnly) {
    List<PartitionData> out = new ArrayList<>(slots.size());
    List<ReadResult> reads = new ArrayList<>();
    long remaining = Math.max(0, request.maxBytes());
    long total = 0;
    boolean minOneBatch = true;
    boolean error = false;
    for (Slot s : slots) {
      PartitionData data = new PartitionData().setPartitionIndex(s.partition());
      out.add(data);
      if (s.error() != Errors.NONE) {
        failed(data, s.error());
        error = true;
        continue;
      }
      int limit = (int) Math.min(Math.max(0, s.ask().partitionMaxBytes()), remaining);
      ReadResult read;
      try {
        long offset = s.ask().fetchOffset();
        read =
            memoryOnly
                ? s.log().readCached(offset, limit, isolation, minOneBatch)
                : s.log().read(offset, limit, isolation, minOneBatch);
      } catch (RuntimeException e) {
        if (memoryOnly) {
          new Pass(out, reads, total, error).release();
          throw e;
        }
        LOG.warn("Reading {}-{} failed", s.topic(), s.partition(), e);
        failed(data, Errors.KAFKA_STORAGE_ERROR);
        error = true;
        continue;
      }
      if (read == null) {
        new Pass(out, reads, total, error).release();
        return null;
      }
      reads.add(read);
      short code = code(read.status());
      data.setErrorCode(code)
          .setHighWatermark(read.highWatermark())
          .setLastStableOffset(read.lastStableOffset())
          .setLogStartOffset(read.logStartOffset())
          .setAbortedTransactions(aborted(read))
          .setRecords(read.records());
      if (code != Errors.NONE) {
        error = true;
        continue;
      }
      int size = read.records().readableBytes();
      if (size > 0) {
        minOneBatch = false;
        remaining = Math.max(0, remaining - size);
        total += size;
      }
    }
    return new Pass(out, reads, total, error);
  }

  private List<AbortedTransaction> aborted(ReadResult read) {
    if (isolation != Isolation.READ_COMMITTED) {
      return null;
    }
    List<AbortedTransaction> out = new ArrayList<>(read.abortedTransactions().size());
    for (ReadResult.AbortedTransaction t : read.abortedTransactions()) {
      out.add(
          new AbortedTransaction().setProducerId(t.producerId()).setFirstOffset(t.firstOffset()));
    }
    return out;
  }

  private static void failed(PartitionData data, short code) {
    data.setErrorCode(code)
        .setHighWatermark(-1)
        .setLastStableOffset(-1)
        .setLogStartOffset(-1)
        .setAbortedTransactions(null)
        .setRecords(Unpooled.EMPTY_BUFFER);
  }

  private static short code(ReadResult.Status status) {
    return switch (status) {
      case OK -> Errors.NONE;
      case OFFSET_OUT_OF_RANGE -> Errors.OFFSET_OUT_OF_RANGE;
      case NOT_OWNER -> Errors.NOT_LEADER_OR_FOLLOWER;
      case STORE_ERROR -> Errors.KAFKA_STORAGE_ERROR;
    };
  }

  private void finish(Pass pass, Throwable failure) {
    synchronized (this) {
      if (finished) {
        if (pass != null) {
          pass.release();
        }
        return;
      }
      finished = true;
    }
    if (timer != null) {
      timer.cancel(false);
    }
    for (AutoCloseable l : listeners) {
      try {
        l.close();
      } catch (Exception e) {
        LOG.debug("Removing a high watermark listener failed", e);
      }
    }
    if (failure != null) {
      result.completeExceptionally(failure);
      return;
    }
    for (ReadResult r : pass.reads()) {
      ctx.releaseAfterResponse(r.records());
    }
    result.complete(response(pass));
  }

  private FetchResponse response(Pass pass) {
    FetchResponse response = new FetchResponse().setSessionId(0);
    FetchableTopicResponse current = null;
    for (int i = 0; i < slots.size(); i++) {
      Slot s = slots.get(i);
      if (current == null || !current.topic().equals(s.topic())) {
        current = new FetchableTopicResponse().setTopic(s.topic());
        response.responses().add(current);
      }
      current.partitions().add(pass.partitions().get(i));
    }
    return response;
  }
}
