package io.kelp.seaweed;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.kelp.engine.LogThrottle;
import io.kelp.seaweed.filer.FilerProto.AssignVolumeRequest;
import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import io.kelp.seaweed.filer.FilerProto.CreateEntryRequest;
import io.kelp.seaweed.filer.FilerProto.CreateEntryResponse;
import io.kelp.seaweed.filer.FilerProto.DeleteEntryRequest;
import io.kelp.seaweed.filer.FilerProto.DeleteEntryResponse;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FilerError;
import io.kelp.seaweed.filer.FilerProto.ListEntriesRequest;
import io.kelp.seaweed.filer.FilerProto.ListEntriesResponse;
import io.kelp.seaweed.filer.FilerProto.Location;
import io.kelp.seaweed.filer.FilerProto.LookupDirectoryEntryRequest;
import io.kelp.seaweed.filer.FilerProto.LookupDirectoryEntryResponse;
import io.kelp.seaweed.filer.FilerProto.LookupVolumeRequest;
import io.kelp.seaweed.filer.FilerProto.LookupVolumeResponse;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionBatchRequest;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionBatchResponse;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionResponse;
import io.kelp.seaweed.filer.SeaweedFilerGrpc;
import io.kelp.seaweed.filer.SeaweedFilerGrpc.SeaweedFilerBlockingStub;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The filer's gRPC API, as the store uses it: one call per method, each with a deadline, retried
 * with capped exponential backoff while the filer is unreachable (restarting, overloaded) until
 * {@code retryFor} has passed. Calls that are not safe to repeat blindly (entry writes) are retried
 * by the store, which knows how to tell whether an earlier attempt landed.
 *
 * <p>The gRPC port is the filer's HTTP port plus 10000, SeaweedFS's convention, unless the address
 * names another ({@link FilerAddress}).
 */
final class FilerClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FilerClient.class);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
  private static final int PAGE = 1024;
  private static final int MAX_MESSAGE_BYTES = 64 << 20;
  private static final String TRANSACTION =
      "/" + SeaweedFilerGrpc.getObjectTransactionMethod().getFullMethodName();
  private static final String TRANSACTION_BATCH =
      "/" + SeaweedFilerGrpc.getObjectTransactionBatchMethod().getFullMethodName();
  private static final String LOOKUP =
      "/" + SeaweedFilerGrpc.getLookupDirectoryEntryMethod().getFullMethodName();
  private static final String ASSIGN =
      "/" + SeaweedFilerGrpc.getAssignVolumeMethod().getFullMethodName();
  private static final int VOLUME_CACHE_SIZE = 4096;

  /** A filer answer that took this long (retries included) is logged, at most every 10 s. */
  static final long SLOW_ANSWER_MS = 2000;

  private final String address;
  private final int grpcPort;
  private final ManagedChannel channel;
  private final SeaweedFilerBlockingStub stub;

  /**
   * The store's own connections, for the calls of the write path (transactions, lookups, volume
   * assignments): cheaper than grpc-java's channel (see {@link BlockingGrpc}).
   */
  private final BlockingGrpc direct;

  private final Duration retryFor;

  /** Answers slower than {@link #SLOW_ANSWER_MS}: one line about them every 10 s at most. */
  private final LogThrottle slowAnswers = new LogThrottle(Duration.ofSeconds(10));

  private final Map<String, List<String>> volumeUrls =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<String>> eldest) {
          return size() > VOLUME_CACHE_SIZE;
        }
      };

  /**
   * @param address the filer's address, as {@link FilerAddress#parse} reads it
   * @param retryFor how long a call keeps retrying while the filer is unreachable
   */
  FilerClient(String address, Duration retryFor) {
    FilerAddress parsed = FilerAddress.parse(address);
    this.address = parsed.toString();
    this.grpcPort = parsed.grpcPort();
    this.retryFor = retryFor;
    channel =
        NettyChannelBuilder.forAddress(parsed.host(), parsed.grpcPort())
            .usePlaintext()
            .maxInboundMessageSize(MAX_MESSAGE_BYTES)
            .keepAliveTime(30, TimeUnit.SECONDS)
            .build();
    stub = SeaweedFilerGrpc.newBlockingStub(channel);
    direct =
        new BlockingGrpc(
            parsed.host(), parsed.grpcPort(), (int) CALL_TIMEOUT.toMillis(), MAX_MESSAGE_BYTES);
  }

  String address() {
    return address;
  }

  /** A single call, retried while the filer is unreachable. */
  interface Call<T> {
    T run(SeaweedFilerBlockingStub stub);
  }

  <T> T call(String what, Call<T> call) throws IOException {
    long start = System.nanoTime();
    long deadline = start + retryFor.toNanos();
    long backoffMs = 20;
    for (int attempt = 1; ; attempt++) {
      try {
        T answer = call.run(stub.withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        noteSlow(() -> what, start);
        return answer;
      } catch (StatusRuntimeException e) {
        if (!retriable(e)) {
          noteSlow(() -> what, start); // an answer all the same (not found, for one)
          throw new FilerException(what + " on filer " + address + " failed: " + e.getStatus(), e);
        }
        if (System.nanoTime() + backoffMs * 1_000_000 > deadline) {
          throw new FilerException(what + " on filer " + address + " failed: " + e.getStatus(), e);
        }
        if (attempt == 1 || attempt % 10 == 0) {
          log.info("{} on filer {} failed ({}), retrying", what, address, e.getStatus().getCode());
        }
      }
      sleep(backoffMs);
      backoffMs = Math.min(1000, backoffMs * 2);
      channel.resetConnectBackoff();
    }
  }

  /**
   * Logs an answer that came {@link #SLOW_ANSWER_MS} or more after {@code start}: the writes and
   * group requests waiting on the filer meanwhile say nothing of their own. One line every 10 s at
   * most, with how many such answers there were. {@code what} is asked for only then, so that the
   * calls that answer in time build no description.
   */
  private void noteSlow(Supplier<String> what, long start) {
    long now = System.nanoTime();
    long ms = (now - start) / 1_000_000;
    if (ms < SLOW_ANSWER_MS) {
      return;
    }
    long count = slowAnswers.count();
    if (count == 0) {
      return;
    }
    log.warn(
        "The filer {} answered {} after {} ms; whatever waited on it (appends, group requests)"
            + " waited as long ({} answer(s) slower than {} ms since the last such line)",
        address,
        what.get(),
        ms,
        count,
        SLOW_ANSWER_MS);
  }

  /** {@link #call} over the store's own connections. */
  private <T> T callDirect(String what, String method, MessageLite request, Parser<T> parser)
      throws IOException {
    return call(what, s -> direct.call(method, request, parser, CALL_TIMEOUT.toMillis()));
  }

  /** Whether the filer may answer if asked again: it was unreachable or timed out. */
  static boolean retriable(StatusRuntimeException e) {
    Status.Code code = e.getStatus().getCode();
    return code == Status.Code.UNAVAILABLE
        || code == Status.Code.DEADLINE_EXCEEDED
        || code == Status.Code.ABORTED
        || code == Status.Code.RESOURCE_EXHAUSTED;
  }

  static void sleep(long ms) throws InterruptedIOException {
    try {
      Thread.sleep(ms + ThreadLocalRandom.current().nextLong(ms / 4 + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting to retry the filer");
    }
  }

  /**
   * Waits until the filer answers a lookup, for a broker starting before its filer does: retries
   * every half second, logging every 10 seconds, and gives up after {@code timeout}.
   */
  void awaitReachable(Duration timeout) throws IOException {
    long start = System.nanoTime();
    long lastLog = start;
    LookupDirectoryEntryRequest request =
        LookupDirectoryEntryRequest.newBuilder().setDirectory("/").setName("kelp").build();
    while (true) {
      try {
        stub.withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .lookupDirectoryEntry(request);
        return;
      } catch (StatusRuntimeException e) {
        if (isNotFound(e.getStatus())) {
          return; // the filer answered
        }
        if (!retriable(e)) {
          throw new FilerException(
              "the filer " + address + " refused a lookup: " + e.getStatus(), e);
        }
        long now = System.nanoTime();
        if (now - start > timeout.toNanos()) {
          throw new FilerException(
              "the SeaweedFS filer at "
                  + address
                  + " (gRPC port "
                  + grpcPort
                  + ") did not answer within "
                  + timeout.toSeconds()
                  + " s: "
                  + e.getStatus(),
              e);
        }
        if (now - lastLog >= TimeUnit.SECONDS.toNanos(10) || lastLog == start) {
          log.info(
              "waiting for the SeaweedFS filer at {} (gRPC port {}): {}",
              address,
              grpcPort,
              e.getStatus().getCode());
          lastLog = now;
        }
      }
      sleep(500);
      // gRPC otherwise waits out its growing reconnect backoff (up to two minutes) after failures
      channel.resetConnectBackoff();
    }
  }

  /** The entry at {@code directory/name}, or empty when there is none. */
  Optional<Entry> lookup(String directory, String name) throws IOException {
    LookupDirectoryEntryRequest request =
        LookupDirectoryEntryRequest.newBuilder().setDirectory(directory).setName(name).build();
    try {
      return Optional.of(
          callDirect(
                  "lookup " + join(directory, name),
                  LOOKUP,
                  request,
                  LookupDirectoryEntryResponse.parser())
              .getEntry());
    } catch (FilerException e) {
      if (isNotFound(e)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Every child of {@code directory}, in the filer's order (by name). */
  List<Entry> list(String directory) throws IOException {
    List<Entry> entries = new ArrayList<>();
    String after = "";
    while (true) {
      ListEntriesRequest request =
          ListEntriesRequest.newBuilder()
              .setDirectory(directory)
              .setStartFromFileName(after)
              .setInclusiveStartFrom(false)
              .setLimit(PAGE)
              .build();
      List<Entry> page =
          call(
              "list " + directory,
              s -> {
                List<Entry> got = new ArrayList<>();
                Iterator<ListEntriesResponse> it = s.listEntries(request);
                it.forEachRemaining(r -> got.add(r.getEntry()));
                return got;
              });
      entries.addAll(page);
      if (page.size() < PAGE) {
        return entries;
      }
      after = page.get(page.size() - 1).getName();
    }
  }

  void create(CreateEntryRequest request) throws IOException {
    CreateEntryResponse response =
        call(
            "create " + join(request.getDirectory(), request.getEntry().getName()),
            s -> s.createEntry(request));
    if (!response.getError().isEmpty()) {
      throw new IOException(
          "create "
              + join(request.getDirectory(), request.getEntry().getName())
              + " on filer "
              + address
              + ": "
              + response.getError());
    }
  }

  /** Deletes an entry and, for a directory, everything under it; a missing entry is fine. */
  void delete(String directory, String name) throws IOException {
    DeleteEntryRequest request =
        DeleteEntryRequest.newBuilder()
            .setDirectory(directory)
            .setName(name)
            .setIsDeleteData(true)
            .setIsRecursive(true)
            .build();
    DeleteEntryResponse response;
    try {
      response = call("delete " + join(directory, name), s -> s.deleteEntry(request));
    } catch (FilerException e) {
      if (isNotFound(e)) {
        return;
      }
      throw e;
    }
    if (!response.getError().isEmpty() && !response.getError().contains("not found")) {
      throw new IOException(
          "delete " + join(directory, name) + " on filer " + address + ": " + response.getError());
    }
  }

  /**
   * After a failed call of a retry loop: waits {@code backoffMs} and returns the next wait, or
   * throws if the failure is not retriable or {@code deadline} (System.nanoTime()) would pass.
   */
  long backOff(String what, StatusRuntimeException e, long deadline, long backoffMs)
      throws IOException {
    if (!retriable(e) || System.nanoTime() + backoffMs * 1_000_000 > deadline) {
      throw new IOException(what + " on filer " + address + " failed: " + e.getStatus(), e);
    }
    sleep(backoffMs);
    resetConnectBackoff();
    return Math.min(1000, backoffMs * 2);
  }

  /** Lets the next call try to connect at once, rather than after gRPC's reconnect backoff. */
  void resetConnectBackoff() {
    channel.resetConnectBackoff();
  }

  /**
   * Sends a transaction that is safe to send again (its condition makes a repeat fail rather than
   * apply twice), resending it while the filer is unreachable for up to {@code retryFor}. Returns
   * the filer's answer; a failed condition ({@code PRECONDITION_FAILED}) is the caller's to judge.
   *
   * @throws IOException if the filer reports another error, or stays unreachable
   */
  ObjectTransactionResponse transact(String what, ObjectTransactionRequest request)
      throws IOException {
    return transact(what, request, this::transactOnce);
  }

  /** {@link #transact(String, ObjectTransactionRequest)}, each attempt sent by {@code send}. */
  ObjectTransactionResponse transact(
      String what,
      ObjectTransactionRequest request,
      Function<ObjectTransactionRequest, ObjectTransactionResponse> send)
      throws IOException {
    long deadline = System.nanoTime() + retryFor.toNanos();
    long backoffMs = 20;
    while (true) {
      ObjectTransactionResponse response;
      try {
        response = send.apply(request);
      } catch (StatusRuntimeException e) {
        backoffMs = backOff(what, e, deadline, backoffMs);
        continue;
      }
      if (response.getErrorCode() != FilerError.PRECONDITION_FAILED
          && !response.getError().isEmpty()) {
        throw new IOException(what + " on filer " + address + ": " + response.getError());
      }
      return response;
    }
  }

  /**
   * One attempt of several independent transactions in one round trip; the answers come in the
   * order of the requests. The caller decides whether a retry is safe. Sent on the caller's thread
   * over the store's own connections ({@link BlockingGrpc}).
   */
  ObjectTransactionBatchResponse transactBatchOnce(ObjectTransactionBatchRequest request) {
    return transactBatchOnce(request, null);
  }

  /**
   * {@link #transactBatchOnce(ObjectTransactionBatchRequest)}, running {@code meanwhile} on this
   * thread between sending the request and reading the answer ({@link BlockingGrpc#call(String,
   * MessageLite, Parser, long, Runnable)}).
   */
  ObjectTransactionBatchResponse transactBatchOnce(
      ObjectTransactionBatchRequest request, Runnable meanwhile) {
    long start = System.nanoTime();
    ObjectTransactionBatchResponse answer =
        direct.call(
            TRANSACTION_BATCH,
            request,
            ObjectTransactionBatchResponse.parser(),
            CALL_TIMEOUT.toMillis(),
            meanwhile);
    noteSlow(() -> "a batch of " + request.getTransactionsCount() + " transactions", start);
    return answer;
  }

  /**
   * One attempt of a transaction; the caller decides whether a retry is safe. Sent as {@link
   * #transactBatchOnce} is.
   */
  ObjectTransactionResponse transactOnce(ObjectTransactionRequest request) {
    return transactOnce(request, null);
  }

  /** {@link #transactOnce(ObjectTransactionRequest)}, running {@code meanwhile} as a batch does. */
  ObjectTransactionResponse transactOnce(ObjectTransactionRequest request, Runnable meanwhile) {
    long start = System.nanoTime();
    ObjectTransactionResponse answer =
        direct.call(
            TRANSACTION,
            request,
            ObjectTransactionResponse.parser(),
            CALL_TIMEOUT.toMillis(),
            meanwhile);
    noteSlow(() -> "a transaction on " + request.getLockKey(), start);
    return answer;
  }

  AssignVolumeResponse assign(AssignVolumeRequest request) throws IOException {
    // The filer does not say why it cannot assign (it waits for volumes to grow until the call's
    // deadline), so the message names the rules that volumes have to meet.
    String what =
        "assign volume for "
            + request.getPath()
            + " ("
            + rules(request)
            + "; if this keeps failing, SeaweedFS has no volume that meets these rules and no"
            + " volume servers with free volume slots to grow one)";
    AssignVolumeResponse response =
        callDirect(what, ASSIGN, request, AssignVolumeResponse.parser());
    if (!response.getError().isEmpty() || response.getFileId().isEmpty()) {
      throw new IOException(what + " on filer " + address + ": " + response.getError());
    }
    return response;
  }

  private static String rules(AssignVolumeRequest request) {
    return "replication "
        + (request.getReplication().isEmpty() ? "the filer's" : request.getReplication())
        + ", collection "
        + (request.getCollection().isEmpty() ? "the filer's" : request.getCollection());
  }

  /** The volume server URLs ({@code host:port}) holding {@code volumeId}, cached. */
  List<String> volumeUrls(String volumeId) throws IOException {
    synchronized (volumeUrls) {
      List<String> cached = volumeUrls.get(volumeId);
      if (cached != null) {
        return cached;
      }
    }
    LookupVolumeRequest request = LookupVolumeRequest.newBuilder().addVolumeIds(volumeId).build();
    LookupVolumeResponse response = call("lookup volume " + volumeId, s -> s.lookupVolume(request));
    List<String> urls = new ArrayList<>();
    if (response.containsLocationsMap(volumeId)) {
      for (Location l : response.getLocationsMapOrThrow(volumeId).getLocationsList()) {
        urls.add(l.getUrl());
      }
    }
    if (urls.isEmpty()) {
      throw new IOException("volume " + volumeId + " has no location on filer " + address);
    }
    synchronized (volumeUrls) {
      volumeUrls.put(volumeId, List.copyOf(urls));
    }
    return urls;
  }

  /** Forgets where a volume is, after reading from there failed. */
  void forgetVolume(String volumeId) {
    synchronized (volumeUrls) {
      volumeUrls.remove(volumeId);
    }
  }

  static boolean isNotFound(FilerException e) {
    return isNotFound(e.status());
  }

  private static boolean isNotFound(Status status) {
    String description = status.getDescription();
    return status.getCode() == Status.Code.NOT_FOUND
        || (description != null && description.contains("no entry is found"));
  }

  static String join(String directory, String name) {
    return directory.endsWith("/") ? directory + name : directory + "/" + name;
  }

  @Override
  public void close() {
    direct.close();
    channel.shutdown();
    try {
      if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** A filer call that failed for good, with the gRPC status. */
  static final class FilerException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient Status status;

    FilerException(String message, StatusRuntimeException cause) {
      super(message, cause);
      this.status = cause.getStatus();
    }

    Status status() {
      return status;
    }
  }
}
