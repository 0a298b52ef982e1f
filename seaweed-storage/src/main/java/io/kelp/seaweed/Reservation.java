package io.kelp.seaweed;

import com.google.protobuf.ByteString;
import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import io.kelp.seaweed.filer.FilerProto.Entry;
import io.kelp.seaweed.filer.FilerProto.FileChunk;
import io.kelp.seaweed.filer.FilerProto.Location;
import java.util.ArrayList;
import java.util.List;

/**
 * The file ids a fenced writer may upload an object's next chunks to, recorded in the object's
 * entry ({@value #KEY}) before any upload to them, and the chunks uploaded to them that the entry
 * does not list yet. One assignment of {@link #count} consecutive needle keys with one cookie, on
 * the volume server that assignment named; the writer uses them in order and never uses one while
 * an earlier one is unsettled, so the ids it uploaded to are a prefix of the reservation.
 *
 * <p>One writer takes ids and adds chunks (the engine runs one write per partition at a time);
 * readers on other threads see the chunks through {@link #addTo}.
 */
final class Reservation {
  /** The extended attribute holding a reservation: {@code <volume url> <file id> <count>}. */
  static final String KEY = "kelp-reserved";

  final String url;
  final String fileId;
  final int count;

  /** Ids handed out so far. */
  private int next;

  /** Whether an id failed and was not shown to have landed: no more ids are taken from here. */
  private boolean spent;

  /** Chunks uploaded to this reservation's ids, offsets from where the entry's listing ends. */
  private final List<FileChunk> uploaded = new ArrayList<>();

  private long uploadedBytes;

  Reservation(String url, String fileId, int count) {
    if (count <= 0 || url.isEmpty() || fileId.isEmpty()) {
      throw new IllegalArgumentException("bad reservation: " + url + " " + fileId + " " + count);
    }
    this.url = url;
    this.fileId = fileId;
    this.count = count;
  }

  static Reservation of(AssignVolumeResponse assigned) {
    return new Reservation(
        assigned.getLocation().getUrl(), assigned.getFileId(), Math.max(1, assigned.getCount()));
  }

  /** The reservation an entry records, or null. */
  static Reservation recordedIn(Entry entry) {
    ByteString value = entry.getExtendedMap().get(KEY);
    if (value == null) {
      return null;
    }
    String[] parts = value.toStringUtf8().split(" ");
    if (parts.length != 3) {
      throw new IllegalArgumentException("bad " + KEY + " attribute: " + value.toStringUtf8());
    }
    return new Reservation(parts[0], parts[1], Integer.parseInt(parts[2]));
  }

  ByteString encoded() {
    return ByteString.copyFromUtf8(url + " " + fileId + " " + count);
  }

  /** The i-th id. */
  FileIdPool.FileId id(int i) {
    return FileIdPool.FileId.of(
        AssignVolumeResponse.newBuilder()
            .setFileId(fileId)
            .setCount(count)
            .setLocation(Location.newBuilder().setUrl(url))
            .build(),
        i);
  }

  /** Whether another id may be taken. */
  synchronized boolean usable() {
    return !spent && next < count;
  }

  /** Takes the next id. */
  synchronized FileIdPool.FileId take() {
    if (!usable()) {
      throw new IllegalStateException("reservation " + fileId + " has no id left");
    }
    return id(next++);
  }

  /** The id last taken landed with {@code size} bytes. */
  synchronized void landed(FileIdPool.FileId id, int size) {
    uploaded.add(ChunkUploader.chunk(id, uploadedBytes, size));
    uploadedBytes += size;
  }

  /** The id last taken may or may not have landed: nothing more is taken from here. */
  synchronized void spend() {
    spent = true;
  }

  /** A copy of the chunks uploaded so far. */
  synchronized List<FileChunk> uploaded() {
    return List.copyOf(uploaded);
  }

  /**
   * {@code entry} with the uploaded chunks after its own, as readers on this broker see it; as it
   * is if it lists them already (the transaction that listed them has just been made).
   */
  synchronized Entry addTo(Entry entry) {
    if (uploaded.isEmpty() || Entries.hasChunk(entry, uploaded.get(0))) {
      return entry;
    }
    long base = Entries.size(entry);
    Entry.Builder b = entry.toBuilder();
    for (FileChunk c : uploaded) {
      b.addChunks(c.toBuilder().setOffset(base + c.getOffset()));
    }
    b.setAttributes(b.getAttributes().toBuilder().setFileSize(base + uploadedBytes));
    return b.build();
  }
}
