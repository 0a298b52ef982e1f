package io.kelp.seaweed;

import static io.kelp.seaweed.Entries.info;
import static io.kelp.seaweed.Entries.newAttributes;
import static io.kelp.seaweed.Entries.size;
import static io.kelp.seaweed.Entries.sortedChunks;
import static io.kelp.seaweed.Entries.split;
import static io.kelp.seaweed.FilerTransactions.fenced;
import static io.kelp.seaweed.FilerTransactions.transaction;

import com.google.protobuf.ByteString;
import io.kelp.engine.store.ConcurrentWrites;
import io.kelp.engine.store.Fence;
import io.kelp.engine.store.FencedException;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.kelp.seaweed.filer.FilerProto.FilerError;
import io.kelp.seaweed.filer.FilerProto.ObjectMutation;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store on a SeaweedFS filer. Store paths map onto the filer tree as they are ({@code
 * /topics/kafka/...}, {@code /kelp/...}).
 *
 * <p><b>Client.</b> We talk to the filer with our own small {@code .proto} (the few messages and
 * fields used, with the filer's field numbers) compiled by current protoc and grpc-java, rather
 * than the official {@code com.seaweedfs:seaweedfs-client}: that client pins protobuf-java 3.16 and
 * grpc 1.53, which would clash with the protobuf 4 and grpc versions the rest of Kelp uses, and it
 * predates the filer's conditional writes ({@code ObjectTransaction}, {@code WriteCondition}) that
 * fencing below relies on. Chunk bytes go to volume servers over plain HTTP.
 *
 * <p><b>Writes.</b> An append uploads its bytes as one or more chunks (AssignVolume, then a PUT to
 * the volume server, with {@code fsync=true} if asked for), then adds the chunks to the file's
 * entry with an {@code ObjectTransaction}: a read-modify-write of the entry. An unfenced one is
 * guarded by the transaction's condition {@code IF_CHUNKS_EQUAL} (the entry still has the chunks
 * read), so a concurrent change makes it re-read instead of losing data; a fenced one by its fence
 * (below), which leaves one writer per directory, whose view of the entry is dropped whenever the
 * outcome of one of its writes is unknown. The filer takes one condition per transaction:
 * conditions set on a mutation are not enforced, and were silently ignored by weed 4.48 (a test
 * with two writers and a stale entry shows it). A failed or timed-out attempt is retried with
 * backoff for up to {@code retryFor}; before each retry the entry is read again, and if it already
 * lists the new chunk the earlier attempt landed, so a retry never adds the bytes twice.
 *
 * <p><b>Fenced appends: reserved ids.</b> A fenced append of one chunk (a partition's produce data)
 * uploads to the next of {@value ReservedAppender#RESERVED_IDS} file ids that the object's entry
 * records as reserved ({@link ReservedAppender}, {@link Reservation}, attribute {@value
 * Reservation#KEY}), and returns once the upload succeeded. When the ids run out, the next append
 * first runs one fenced transaction that lists the chunks uploaded to them (and those other objects
 * of the directory still have unlisted) and records the next reservation: one filer transaction per
 * {@value ReservedAppender#RESERVED_IDS} appends instead of one each. Until then the chunks are
 * known to this store alone: its {@link #read}, {@link #stat} and {@link #list} add them, and a
 * store that reads the object without claiming its directory sees only the listed ones, until the
 * writer publishes the object ({@link #publish}: the engine does when a partition has been idle for
 * a moment, and when it seals a segment) or a clean {@link #close} lists them (for at most {@value
 * #LIST_AT_CLOSE_MS} ms). A failed upload is retried on the same id, then settled with {@link
 * VolumeClient#closeOff}: if it landed it counts, otherwise the id and the rest of the reservation
 * are never used. {@link #claim} by a new owner (or the same broker after a restart) settles every
 * reservation recorded in the directory the same way, in order: ids that hold chunks are listed,
 * and the first that does not is closed off, so the writer that made the reservation can land
 * nothing after the claim, and nothing it acknowledged is left out. Closing off needs an unsigned
 * write: when assignments come with write tokens, fenced appends take the path below instead, one
 * transaction each.
 *
 * <p>On that path a fenced append of one chunk runs its upload and its transaction at the same
 * time, since the filer does not check that a chunk it lists exists: the append then costs the
 * slower of the two round trips instead of both (see the README for what that measured); both run
 * on the appending thread, the upload once the transaction's request is sent. Its entry names that
 * chunk in the extended attribute {@value #PENDING_CHUNK_KEY}. If the upload fails, the bytes are
 * uploaded anew (retrying as above) and the entry's chunk replaced by a fenced transaction; if the
 * writer stops first, the entry ends in a chunk its volume server does not have, past any data that
 * was acknowledged. Readers ask for such a missing chunk until {@value #PENDING_SETTLE_MS} ms after
 * its timestamp, then treat the object as ending where it starts, so recovery sees a torn tail. The
 * writer in turn fails an append whose upload ended more than {@value #PENDING_UPLOAD_LIMIT_MS} ms
 * after that timestamp: a second broker that claimed the partition and read the object meanwhile
 * may have left the chunk out, and an append that returned must never be left out. When a method
 * returns, the chunk is in its volume server's file (and fsync'd, if asked for) and the entry is
 * stored by the filer. File ids are assigned ahead, per directory ({@link FileIdPool}), so an
 * append does not wait for the master. The transactions of the writers of one group-commit cycle
 * (the engine reports them through {@link #concurrentWrites}) go to the filer in one batch ({@link
 * TransactionBatcher}). Puts of up to {@value #INLINE_LIMIT} bytes are stored inline in the entry;
 * larger ones as chunks. Either way the entry is replaced in one filer write, so a put is atomic.
 * Small unfenced appends (none of the broker's) are kept in the entry's content, in one transaction
 * and without an upload, while it stays within that limit ({@link InlineAppender}).
 *
 * <p><b>Fencing.</b> {@link #claim} records a directory's owner epoch in the entry {@value
 * EpochMarker#FILE} in that directory: its content is the epoch and the claiming store's writer id
 * (random, one per store instance, so one per broker process), and its ETag (the filer's {@value
 * EpochMarker#ETAG_KEY} attribute, mirrored in the MD5 attribute) is a digest of both. A claim is a
 * compare-and-set: a transaction that replaces the marker only if its ETag is still the one read
 * (or it is still absent). A claim with the epoch already recorded succeeds only for the writer
 * that recorded it; for another writer (a second broker whose epoch happens to be equal) it fails
 * with {@link FencedException}, so an epoch never has two writers. Every fenced append or put is a
 * transaction locked on the marker whose condition is "the marker's ETag is the digest of my epoch
 * and me". The filer evaluates the condition and applies the write under its lock for the marker
 * path, and claims take the same lock, so once a higher claim has returned no write with a lower
 * epoch (or of another writer) can land: it fails with {@link FencedException}. Limits: the filer's
 * per-path lock is local to one filer; with several filers the transactions name the marker as
 * their route key, which sends them to the filer that owns it in the filer ring, so the guarantee
 * holds as long as that forwarding does. Durability of the entry itself is the filer store's: the
 * default leveldb store survives a filer process crash but does not fsync each write, so a machine
 * crash of the filer host can lose its last updates.
 */
public final class SeaweedObjectStore implements ObjectStore {
  static final int INLINE_LIMIT = 64 * 1024;
  static final int MAX_CHUNK = 8 << 20;
  private static final Duration DEFAULT_RETRY = Duration.ofSeconds(60);

  /**
   * Whether volume servers fsync chunks unless told otherwise: no, as SeaweedFS itself and Kafka's
   * log. A chunk the volume server has answered for is in its volume file, which survives a crash
   * of any process; fsync adds safety from power loss only where the filer store syncs its entries
   * as well, which the default leveldb store does not.
   */
  public static final boolean DEFAULT_FSYNC = false;

  /** Longest a close spends listing the chunks uploaded and not listed yet. */
  static final long LIST_AT_CLOSE_MS = 5_000;

  /** Default budget of the chunk read cache. */
  public static final long DEFAULT_READ_CACHE_BYTES = 64L << 20;

  /**
   * Default appends per object before the engine rolls to a new one. Each append rewrites the entry
   * with all its chunks, and the filer also records the old and the new entry in its metadata log,
   * so an append's cost grows with the chunks the entry holds: measured under acks=all load, a
   * transaction took about 0.7 ms at 12 chunks, 1.3 ms at 50, 1.7 ms at 100 and 3.5-7 ms at 400,
   * and the filer's CPU time slowed the uploads as well (see the README).
   */
  public static final long DEFAULT_MAX_APPENDS_PER_OBJECT = 32;

  /**
   * The entry's extended attribute naming the chunk whose upload ran alongside the transaction that
   * added it.
   */
  static final String PENDING_CHUNK_KEY = "kelp-pending-chunk";

  /**
   * How long after a pending chunk's timestamp its upload may end and still count: an append whose
   * upload ends later fails instead of returning, although its bytes are stored.
   */
  static final long PENDING_UPLOAD_LIMIT_MS = 10_000;

  /**
   * How long after a pending chunk's timestamp a reader keeps asking for it while it is missing:
   * the upload limit and a margin for the clocks of two brokers. Only then is the object read as
   * ending before the chunk, so a reader never drops bytes whose append still returns.
   */
  static final long PENDING_SETTLE_MS = PENDING_UPLOAD_LIMIT_MS + 5_000;

  private static final Logger log = LoggerFactory.getLogger(SeaweedObjectStore.class);

  private static final int ENTRY_CACHE_SIZE = 1024;

  private static final long ENTRY_CACHE_BYTES = 16L << 20;

  /** Entries kept for reads ({@link ReadEntries}): about 1-2 KB each for a segment of 32 chunks. */
  private static final int READ_ENTRIES_SIZE = 8192;

  private static final long READ_ENTRIES_BYTES = 16L << 20;

  /** The directory whose storage rules the start-up check's chunk follows. */
  private static final String CHECK_DIRECTORY = "/kelp";

  private final FilerClient filer;
  private final TransactionBatcher batcher;
  private final VolumeClient volumes;
  private final ByteBufAllocator allocator;
  private final Duration retryFor;
  private final ChunkReader chunkReader;
  private final EntryCache entries = new EntryCache(ENTRY_CACHE_SIZE, ENTRY_CACHE_BYTES);
  private final ReadEntries readEntries = new ReadEntries(READ_ENTRIES_SIZE, READ_ENTRIES_BYTES);
  private final long maxAppendsPerObject;
  private final ChunkUploader uploader;
  private final InlineAppender inlineAppends;
  private final ReservedAppender reservedAppends;
  private final ChunkAppender chunkAppends;
  private final WriteTimings timings = new WriteTimings();

  /** The epoch this store holds each directory at, by directory, as its claims answered. */
  private final ConcurrentHashMap<String, Long> owned = new ConcurrentHashMap<>();

  /** This store's identity in the epoch markers it claims (see Fencing above). */
  private final String writer = EpochMarker.newWriter();

  /**
   * @param filerAddress the filer's {@code host:port} (HTTP port; gRPC is that plus 10000)
   * @param collection the SeaweedFS collection for chunks, or "" for the default
   * @param replication the replication for chunks such as "001", or "" for the filer's default
   * @param retryFor how long an operation keeps retrying while SeaweedFS is unreachable
   * @param readCacheBytes budget of the cache of chunks read (0: none)
   * @param maxAppendsPerObject what {@link #maxAppendsPerObject()} answers
   * @param fsync whether volume servers fsync each chunk before an append or put returns
   */
  public SeaweedObjectStore(
      String filerAddress,
      String collection,
      String replication,
      Duration retryFor,
      long readCacheBytes,
      long maxAppendsPerObject,
      boolean fsync,
      ByteBufAllocator allocator) {
    this.filer = new FilerClient(filerAddress, retryFor);
    this.batcher = new TransactionBatcher(filer);
    this.volumes = new VolumeClient(fsync, allocator);
    this.retryFor = retryFor;
    this.uploader = new ChunkUploader(filer, volumes, collection, replication, retryFor);
    this.inlineAppends = new InlineAppender(filer, entries, retryFor);
    this.reservedAppends =
        new ReservedAppender(filer, batcher, volumes, uploader, entries, timings, retryFor, writer);
    this.chunkAppends =
        new ChunkAppender(filer, batcher, uploader, entries, timings, retryFor, writer);
    this.chunkReader = new ChunkReader(filer, volumes, new ChunkCache(readCacheBytes), retryFor);
    this.maxAppendsPerObject = maxAppendsPerObject;
    this.allocator = allocator;
  }

  public SeaweedObjectStore(
      String filerAddress,
      String collection,
      String replication,
      Duration retryFor,
      ByteBufAllocator allocator) {
    this(
        filerAddress,
        collection,
        replication,
        retryFor,
        DEFAULT_READ_CACHE_BYTES,
        DEFAULT_MAX_APPENDS_PER_OBJECT,
        DEFAULT_FSYNC,
        allocator);
  }

  public SeaweedObjectStore(String filerAddress, ByteBufAllocator allocator) {
    this(filerAddress, "", "", DEFAULT_RETRY, allocator);
  }

  @Override
  public void append(String path, ByteBuf data, Fence fence) throws IOException {
    String[] p = split(path);
    long start = System.nanoTime();
    if (fence == null && inlineAppends.append(path, p, data)) {
      timings.commit(System.nanoTime() - start);
      return;
    }
    if (fence != null && data.readableBytes() > 0 && data.readableBytes() <= MAX_CHUNK) {
      if (reservedAppends.append(path, p, data, fence)) {
        return;
      }
      reservedAppends.listLeftOver(path, p, fence);
      chunkAppends.appendWhileUploading(path, p, data, fence);
      return;
    }
    chunkAppends.uploadThenList(path, p, data, fence);
  }

  /** When readers give up on a pending chunk that is missing ({@link #PENDING_SETTLE_MS}). */
  static long pendingSettledMillis(FileChunk chunk) {
    return chunk.getModifiedTsNs() / 1_000_000 + PENDING_SETTLE_MS;
  }

  /**
   * Lists the chunks uploaded to ids {@code path}'s entry reserved ({@link
   * ReservedAppender#publish}).
   */
  @Override
  public void publish(String path, Fence fence) throws IOException {
    reservedAppends.publish(path, split(path), fence);
  }

  @Override
  public void put(String path, ByteBuf data, Fence fence) throws IOException {
    String[] p = split(path);
    entries.forget(path);
    reservedAppends.forget(path);
    long now = System.currentTimeMillis() / 1000;
    Entry.Builder entry =
        Entry.newBuilder()
            .setName(p[1])
            .setAttributes(newAttributes(now).toBuilder().setFileSize(data.readableBytes()));
    if (data.readableBytes() <= INLINE_LIMIT) {
      entry.setContent(ByteString.copyFrom(ByteBufUtil.getBytes(data)));
    } else {
      long start = System.nanoTime();
      entry.addAllChunks(uploader.upload(path, data));
      timings.upload(System.nanoTime() - start, data.readableBytes());
    }
    ObjectMutation put = FilerTransactions.put(p[0], entry.build());
    long start = System.nanoTime();
    try {
      commit(path, transaction(path, fence, writer, put), fence);
    } finally {
      timings.commit(System.nanoTime() - start);
      readEntries.replaced(path);
    }
  }

  /** Runs an idempotent transaction, retrying while the filer is unreachable. */
  private void commit(String path, ObjectTransactionRequest request, Fence fence)
      throws IOException {
    if (filer.transact("write of " + path, request, batcher::transact).getErrorCode()
        == FilerError.PRECONDITION_FAILED) {
      throw fenced(path, fence);
    }
  }

  @Override
  public ByteBuf read(String path, long position, int length) throws IOException {
    String[] p = split(path);
    // The reservation first: one replaced after our look at the entry would miss chunks.
    Reservation r = reservedAppends.unlisted(path);
    Entry entry = entries.get(path).or(() -> readEntries.get(path)).orElse(null);
    if (entry != null) {
      entry = ReservedAppender.withUnlisted(entry, r);
    }
    if (entry == null || position + length > size(entry)) {
      // Unknown here, or the read goes past what we know: ask the filer.
      long mark = readEntries.mark();
      entry = filer.lookup(p[0], p[1]).orElseThrow(() -> new NoSuchFileException(path));
      readEntries.keep(path, entry, mark);
      entry = ReservedAppender.withUnlisted(entry, r);
    }
    if (entry.getIsDirectory()) {
      throw new IOException("cannot read " + path + ": it is a directory");
    }
    long size = size(entry);
    if (position >= size || length <= 0) {
      return allocator.buffer(0);
    }
    int n = (int) Math.min(length, size - position);
    if (!entry.getContent().isEmpty()) {
      ByteBuf out = allocator.buffer(n);
      out.writeBytes(
          entry.getContent().substring((int) position, (int) position + n).toByteArray());
      return out;
    }
    return chunkReader.read(path, sortedChunks(entry), position, n, pendingChunk(entry), allocator);
  }

  @Override
  public Optional<ObjectInfo> stat(String path) throws IOException {
    if (path.equals("/")) {
      return Optional.of(new ObjectInfo("", true, 0));
    }
    String[] p = split(path);
    Reservation r = reservedAppends.unlisted(path);
    return filer.lookup(p[0], p[1]).map(e -> info(ReservedAppender.withUnlisted(e, r)));
  }

  @Override
  public List<ObjectInfo> list(String directory) throws IOException {
    String[] p = directory.equals("/") ? null : split(directory);
    String dir = p == null ? "/" : FilerClient.join(p[0], p[1]);
    List<ObjectInfo> children = new ArrayList<>();
    List<Entry> entries;
    long mark = readEntries.mark();
    try {
      entries = filer.list(dir);
    } catch (FilerClient.FilerException e) {
      if (FilerClient.isNotFound(e)) {
        return List.of();
      }
      throw e;
    }
    for (Entry e : entries) {
      if (!e.getName().equals(EpochMarker.FILE)) {
        String child = FilerClient.join(dir, e.getName());
        children.add(info(ReservedAppender.withUnlisted(e, reservedAppends.unlisted(child))));
        readEntries.keep(child, e, mark);
      }
    }
    children.sort(Comparator.comparing(ObjectInfo::name));
    return children;
  }

  @Override
  public void delete(String path) throws IOException {
    String[] p = split(path);
    entries.forgetTree(path);
    reservedAppends.forgetTree(path);
    try {
      filer.delete(p[0], p[1]);
    } finally {
      readEntries.replaced(path);
    }
  }

  @Override
  public long claim(String directory, long epoch) throws IOException {
    long claimed = EpochMarker.claim(filer, directory, epoch, writer);
    Long held = owned.get(directory);
    if (claimed == epoch && held != null && held == epoch) {
      // This store owns the directory at this epoch already: the engine checking that it still
      // does (before a delete). Its reservations stay as they are.
      return claimed;
    }
    owned.remove(directory);
    // What this store knew of the directory's objects may be out of date: another writer may
    // have owned it since.
    reservedAppends.forgetTree(directory);
    entries.forgetTree(directory);
    if (claimed == epoch) {
      reservedAppends.settle(directory, new Fence(directory, claimed));
      owned.put(directory, epoch);
    }
    return claimed;
  }

  /** The chunk whose upload ran alongside the entry's last transaction, or null. */
  private static String pendingChunk(Entry entry) {
    ByteString pending = entry.getExtendedMap().get(PENDING_CHUNK_KEY);
    return pending == null ? null : pending.toStringUtf8();
  }

  /**
   * Lists the chunks uploaded and not listed yet ({@link ReservedAppender#listAll}), on a thread of
   * its own for at most {@link #LIST_AT_CLOSE_MS}: with the filer unreachable a close would
   * otherwise wait as long as the filer client retries. What is not listed then stays for the next
   * owner's claim, as after a crash. The caller has stopped appending.
   */
  private void listUnlistedAtClose() {
    Map<String, Long> epochs = Map.copyOf(owned);
    if (epochs.isEmpty()) {
      return;
    }
    AtomicBoolean timeUp = new AtomicBoolean();
    AtomicInteger listed = new AtomicInteger();
    Thread t =
        new Thread(
            () -> listed.set(reservedAppends.listAll(epochs, timeUp::get)), "kelp-list-at-close");
    t.setDaemon(true);
    long start = System.nanoTime();
    t.start();
    try {
      t.join(LIST_AT_CLOSE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    timeUp.set(true);
    if (t.isAlive()) {
      log.warn(
          "Listing the last chunks of this store's objects took over {} ms; the next owner's claim"
              + " lists the rest",
          LIST_AT_CLOSE_MS);
    } else if (listed.get() > 0) {
      log.info(
          "Listed the last chunks of {} object(s) in {} ms",
          listed.get(),
          (System.nanoTime() - start) / 1_000_000);
    }
  }

  @Override
  public long maxAppendsPerObject() {
    return maxAppendsPerObject;
  }

  /**
   * Waits until the filer answers, for a broker that starts before SeaweedFS does; gives up with an
   * IOException after {@code timeout}.
   */
  public void awaitFiler(Duration timeout) throws IOException {
    filer.awaitReachable(timeout);
  }

  /**
   * Stores a small chunk on a volume server the filer assigns, reads it back and deletes it, once:
   * a broker that cannot reach the volume servers (an address only valid inside another network,
   * say) says so at start rather than at its first write, and the first produce request does not
   * pay for setting up the upload path. Returns the volume server's address.
   *
   * @throws IOException if the chunk could not be stored or read back
   */
  public String checkVolumes() throws IOException {
    return checkVolumeChunk().url();
  }

  /** {@link #checkVolumes}, returning the id the test chunk had. */
  FileIdPool.FileId checkVolumeChunk() throws IOException {
    return uploader.checkVolumeChunk(CHECK_DIRECTORY);
  }

  /**
   * The writers of the engine's group commit cycles: their appends' and puts' filer transactions go
   * together ({@link TransactionBatcher}).
   */
  @Override
  public ConcurrentWrites concurrentWrites() {
    return batcher;
  }

  TransactionBatcher batcher() {
    return batcher;
  }

  /**
   * Whether fenced appends use reservations; off, each is listed by its own transaction, as with
   * volume servers that check write tokens. For tests of that path.
   */
  void useReservations(boolean on) {
    reservedAppends.use(on);
  }

  /** Filer transactions the engine's writers sent. */
  public long writerTransactions() {
    return batcher.transactions();
  }

  /** The requests those transactions went in: fewer when batched together. */
  public long writerTransactionRequests() {
    return batcher.requests();
  }

  /** Upload and filer-transaction counts and times of appends, for metrics. */
  public WriteTimings timings() {
    return timings;
  }

  @Override
  public String describe() {
    return "seaweedfs:" + filer.address();
  }

  @Override
  public void close() {
    listUnlistedAtClose();
    reservedAppends.clear();
    chunkReader.close();
    volumes.close();
    uploader.close();
    filer.close();
  }
}
