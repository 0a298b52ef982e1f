package io.kelp.seaweed;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Chunk bytes to and from SeaweedFS volume servers over HTTP: a PUT of the raw bytes to {@code
 * http://<volume>/<fileId>?fsync=true} stores a chunk (the volume server fsyncs before it answers;
 * without {@code fsync} it answers once the bytes are in its volume file, which survives a crash of
 * the process but not of the machine), and a ranged GET reads part of one back. Uploads and reads
 * go through {@link PlainHttp} (the ranges of one read pipelined on one connection per volume
 * server, {@link #readAll}); deletes, which are rare, through the JDK's HttpClient.
 */
final class VolumeClient implements AutoCloseable {
  private final String uploadQuery;

  /**
   * @param fsync whether uploads ask the volume server to fsync before answering
   */
  VolumeClient(boolean fsync, ByteBufAllocator alloc) {
    this.uploadQuery = fsync ? "?fsync=true" : "";
    this.alloc = alloc;
  }

  /** Where chunks read land: pooled buffers, so reading leaves no garbage behind. */
  private final ByteBufAllocator alloc;

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final String[] CONTENT_TYPE = {"Content-Type", "application/octet-stream"};

  /** What {@link #closeOff} stores under a file id's key. */
  private static final byte[] MARKER = {'x'};

  /** What a volume server answers a write without the token it requires. */
  private static final int UNAUTHORIZED = 401;

  /** Uploads: on the caller's thread, over kept-alive sockets (see {@link PlainHttp}). */
  private final PlainHttp uploads = new PlainHttp(5000, (int) TIMEOUT.toMillis());

  /** Reads: on the caller's thread or on {@link #readers}, over sockets of their own. */
  private final PlainHttp reads = new PlainHttp(5000, (int) TIMEOUT.toMillis());

  /** Threads for the reads of a range's chunks on other volume servers than its first's. */
  private static final int READ_THREADS = 8;

  private final ExecutorService readers =
      Executors.newFixedThreadPool(READ_THREADS, new DefaultThreadFactory("kelp-chunk-read", true));

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /**
   * Stores {@code data} (its readable bytes, left unchanged) as the chunk {@code fileId}; {@code
   * auth} is the JWT from assign, if any.
   */
  void upload(String volumeUrl, String fileId, String auth, ByteBuf data) throws IOException {
    PlainHttp.Response response =
        auth.isEmpty()
            ? uploads.send(volumeUrl, "PUT", "/" + fileId + uploadQuery, data, CONTENT_TYPE)
            : uploads.send(
                volumeUrl,
                "PUT",
                "/" + fileId + uploadQuery,
                data,
                CONTENT_TYPE[0],
                CONTENT_TYPE[1],
                "Authorization",
                "BEARER " + auth);
    if (response.status() >= 300) {
      throw new IOException(
          "upload of chunk "
              + fileId
              + " to volume server "
              + volumeUrl
              + " failed: HTTP "
              + response.status()
              + " "
              + response.text());
    }
  }

  /** What {@link #closeOff} found a file id's needle key to be. */
  enum KeyState {
    /** The key holds the marker: no upload of the id can succeed from now on. */
    CLOSED,
    /** The key holds a needle under the id's own cookie: an upload of the id landed. */
    TAKEN
  }

  /**
   * Settles whether chunk {@code fileId} was ever stored, for good: writes a one-byte marker under
   * the same needle key with another cookie ({@link #markerOf}). A volume server refuses a write to
   * a key that holds a needle with a different cookie ("mismatching cookie"), so once the marker is
   * stored every upload of {@code fileId} fails, and if an upload of {@code fileId} came first the
   * marker is refused and the chunk is there to read. A writer that may have uploaded to an id it
   * reserved can so be shut out of it by whoever takes over, with no clock involved. Writing the
   * marker again is harmless (same key, same cookie). Only for ids assigned without a write token:
   * the marker's id was never assigned, so there is no token for it. If the volume server has come
   * to require tokens since (its refusal is HTTP 401) and the id holds no chunk, it is as closed:
   * an upload without a token can no longer land, so unless the volume server stops requiring
   * tokens again, the writer that holds the id can land nothing under it.
   *
   * @throws IOException if the volume server could not be asked, or refused the marker for another
   *     reason than a chunk under the id's cookie
   */
  KeyState closeOff(String volumeUrl, String fileId) throws IOException {
    String marker = markerOf(fileId);
    PlainHttp.Response response =
        uploads.send(
            volumeUrl,
            "PUT",
            "/" + marker + uploadQuery,
            Unpooled.wrappedBuffer(MARKER),
            CONTENT_TYPE);
    if (response.status() < 300) {
      return KeyState.CLOSED;
    }
    IOException refused =
        new IOException(
            "closing off chunk "
                + fileId
                + " on volume server "
                + volumeUrl
                + ": the marker "
                + marker
                + " was refused: HTTP "
                + response.status()
                + " "
                + response.text());
    try {
      read(volumeUrl, fileId, 0, 1).release();
      return KeyState.TAKEN;
    } catch (ChunkNotFoundException notThere) {
      if (response.status() == UNAUTHORIZED) {
        // The volume server takes writes only with a token now, and the ids closed off here are
        // only ever assigned without one: no upload of the id can land any more.
        return KeyState.CLOSED;
      }
      refused.addSuppressed(notThere);
      throw refused;
    } catch (IOException notRead) {
      refused.addSuppressed(notRead);
      throw refused;
    }
  }

  /**
   * {@code fileId} ({@code <volume>,<key><cookie>}, the cookie its last 8 hex digits) with the
   * cookie's bits flipped: the same needle key under a cookie no assignment gave out with it. A
   * flipped cookie of 0 becomes 1, since a volume server may take a write with cookie 0 as having
   * the stored needle's cookie.
   */
  static String markerOf(String fileId) {
    int comma = fileId.indexOf(',');
    if (comma <= 0 || fileId.length() - comma - 1 <= 8) {
      throw new IllegalArgumentException("not a SeaweedFS file id: " + fileId);
    }
    int split = fileId.length() - 8;
    long cookie = Long.parseLong(fileId.substring(split), 16) ^ 0xffffffffL;
    if (cookie == 0) {
      cookie = 1;
    }
    return fileId.substring(0, split) + String.format(Locale.ROOT, "%08x", cookie);
  }

  /** The size of chunk {@code fileId}, from a HEAD request. */
  long size(String volumeUrl, String fileId) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://" + volumeUrl + "/" + fileId))
            .timeout(TIMEOUT)
            .method("HEAD", HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<Void> response = send(request, HttpResponse.BodyHandlers.discarding());
    if (response.statusCode() == 404) {
      throw new ChunkNotFoundException("chunk " + fileId + " is not on volume server " + volumeUrl);
    }
    if (response.statusCode() >= 300) {
      throw new IOException(
          "size of chunk "
              + fileId
              + " on volume server "
              + volumeUrl
              + ": HTTP "
              + response.statusCode());
    }
    return response
        .headers()
        .firstValueAsLong("Content-Length")
        .orElseThrow(
            () -> new IOException("volume server " + volumeUrl + " gave no size for " + fileId));
  }

  /** Deletes chunk {@code fileId}; {@code auth} is the JWT from assign, if any. */
  void delete(String volumeUrl, String fileId, String auth) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://" + volumeUrl + "/" + fileId))
            .timeout(TIMEOUT)
            .DELETE();
    if (!auth.isEmpty()) {
      request.header("Authorization", "BEARER " + auth);
    }
    HttpResponse<String> response = send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300 && response.statusCode() != 404) {
      throw new IOException(
          "delete of chunk "
              + fileId
              + " on volume server "
              + volumeUrl
              + " failed: HTTP "
              + response.statusCode()
              + " "
              + response.body());
    }
  }

  /**
   * Reads {@code length} bytes of chunk {@code fileId} from {@code offset} within the chunk, into a
   * buffer the caller releases.
   */
  ByteBuf read(String volumeUrl, String fileId, long offset, int length) throws IOException {
    // A server that ignores Range sends the chunk from its start: keep up to the range's end.
    int keep = (int) Math.min(Integer.MAX_VALUE - 16, offset + length);
    PlainHttp.BufferResponse response =
        reads.sendForBuffer(
            alloc,
            volumeUrl,
            "GET",
            "/" + fileId,
            keep,
            "Range",
            "bytes=" + offset + "-" + (offset + length - 1));
    return body(response, volumeUrl, fileId, offset, length);
  }

  /** Part of a chunk: {@code length} bytes of chunk {@code fileId} from {@code offset}. */
  record Range(String fileId, long offset, int length) {}

  /**
   * Reads the ranges from one volume server on the caller's thread, all on one connection with
   * their requests pipelined ({@link PlainHttp#getPipelined}), so that the chunks of a block cost
   * no thread switch each. Returns a future per range, all done: the bytes (which the caller
   * releases), or failed with the {@link IOException} {@link #read} would throw for it.
   */
  List<CompletableFuture<ByteBuf>> readAll(String volumeUrl, List<Range> ranges) {
    List<CompletableFuture<ByteBuf>> results = new ArrayList<>(ranges.size());
    for (int i = 0; i < ranges.size(); i++) {
      results.add(new CompletableFuture<>());
    }
    readInto(volumeUrl, ranges, results);
    return results;
  }

  /** {@link #readAll} on one of the read threads; the futures complete as the answers come. */
  List<CompletableFuture<ByteBuf>> readAllAsync(String volumeUrl, List<Range> ranges) {
    List<CompletableFuture<ByteBuf>> results = new ArrayList<>(ranges.size());
    for (int i = 0; i < ranges.size(); i++) {
      results.add(new CompletableFuture<>());
    }
    try {
      readers.execute(() -> readInto(volumeUrl, ranges, results));
    } catch (RejectedExecutionException e) {
      IOException closed = new IOException("volume client closed");
      results.forEach(f -> f.completeExceptionally(closed));
    }
    return results;
  }

  private void readInto(
      String volumeUrl, List<Range> ranges, List<CompletableFuture<ByteBuf>> results) {
    try {
      List<PlainHttp.Get> gets = new ArrayList<>(ranges.size());
      for (Range r : ranges) {
        int keep = (int) Math.min(Integer.MAX_VALUE - 16, r.offset + r.length);
        gets.add(
            new PlainHttp.Get(
                "/" + r.fileId,
                keep,
                "Range",
                "bytes=" + r.offset + "-" + (r.offset + r.length - 1)));
      }
      PlainHttp.Pipelined answers = reads.getPipelined(alloc, volumeUrl, gets);
      for (int i = 0; i < ranges.size(); i++) {
        Range r = ranges.get(i);
        if (i < answers.answers().size()) {
          try {
            results
                .get(i)
                .complete(body(answers.answers().get(i), volumeUrl, r.fileId, r.offset, r.length));
          } catch (IOException e) {
            results.get(i).completeExceptionally(e);
          }
        } else {
          IOException failure =
              new IOException(
                  "read of chunk "
                      + r.fileId
                      + " from volume server "
                      + volumeUrl
                      + " failed: "
                      + answers.failure(),
                  answers.failure());
          results.get(i).completeExceptionally(failure);
        }
      }
    } catch (RuntimeException | Error e) {
      // Out of direct memory, say: the ranges not done yet fail, so no reader waits forever.
      results.forEach(f -> f.completeExceptionally(e));
    }
  }

  /** The asked part of an answer's body; releases the rest, or all of it on an error. */
  private static ByteBuf body(
      PlainHttp.BufferResponse response, String volumeUrl, String fileId, long offset, int length)
      throws IOException {
    ByteBuf body = response.body();
    int status = response.status();
    if (status == 200 && body.readableBytes() >= offset + length) {
      // A server that ignores Range sends the whole chunk.
      if (offset == 0 && body.readableBytes() == length) {
        return body;
      }
      ByteBuf part = body.retainedSlice(body.readerIndex() + (int) offset, length);
      body.release();
      return part;
    }
    if (status != 206 || body.readableBytes() != length) {
      int got = body.readableBytes();
      body.release();
      if (status == 404) {
        throw new ChunkNotFoundException(
            "chunk " + fileId + " is not on volume server " + volumeUrl + " (HTTP 404)");
      }
      throw new IOException(
          "read of chunk "
              + fileId
              + " ["
              + offset
              + ", +"
              + length
              + ") from volume server "
              + volumeUrl
              + " failed: HTTP "
              + status
              + ", "
              + got
              + " bytes");
    }
    return body;
  }

  /** A volume server answered that it has no such chunk. */
  static final class ChunkNotFoundException extends IOException {
    private static final long serialVersionUID = 1L;

    ChunkNotFoundException(String message) {
      super(message);
    }
  }

  private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException {
    try {
      return http.send(request, handler);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted talking to " + request.uri());
    }
  }

  @Override
  public void close() {
    readers.shutdownNow();
    uploads.close();
    reads.close();
  }
}
