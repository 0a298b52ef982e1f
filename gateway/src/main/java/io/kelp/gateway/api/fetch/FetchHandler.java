package io.kelp.gateway.api.fetch;

import io.kelp.codec.message.FetchRequest;
import io.kelp.codec.message.FetchResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import java.util.concurrent.CompletableFuture;

/**
 * Fetch (key 1), versions 4-12 (13+ name topics by id, which Kelp does not hand out yet).
 *
 * <ul>
 *   <li>Whole batches only; a fetch offset inside a batch returns that whole batch, and clients
 *       skip the records before their offset.
 *   <li>Limits as Kafka: each partition gets at most its partition_max_bytes and what is left of
 *       max_bytes, but until one partition has returned data a partition returns at least one whole
 *       batch even if it is larger than both limits, so a consumer never gets stuck.
 *   <li>Long poll: when fewer than min_bytes are available and no partition has an error, the
 *       response waits up to max_wait_ms, woken whenever a requested partition's high watermark
 *       moves.
 *   <li>read_committed (isolation 1) reads up to the last stable offset and lists aborted
 *       transactions; read_uncommitted reads up to the high watermark. High watermark, last stable
 *       offset and log start offset are reported; records are never null, even on errors.
 *   <li>The client's current leader epoch (v9+) is checked: FENCED_LEADER_EPOCH or
 *       UNKNOWN_LEADER_EPOCH.
 * </ul>
 *
 * <p>Fetch sessions are declined: every response has session id 0 and covers every requested
 * partition, forgotten topics are ignored, and an incremental request (epoch above 0) gets
 * FETCH_SESSION_ID_NOT_FOUND so the client falls back to full requests. Reads run on the blocking
 * executor. No preferred read replica (-1).
 */
public final class FetchHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 1;
  }

  @Override
  public short minVersion() {
    return 4;
  }

  @Override
  public short maxVersion() {
    return 12;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    FetchRequest r = (FetchRequest) request;
    if (ctx.apiVersion() >= 7 && r.sessionEpoch() > 0) {
      return CompletableFuture.completedFuture(
          new FetchResponse().setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND).setSessionId(0));
    }
    return new FetchOperation(ctx, r).start();
  }
}
