package io.kelp.engine.catalog;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kelp.engine.store.ObjectInfo;
import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics of one namespace and where their partitions live, kept in the store as one {@value
 * #TOPIC_FILE} per topic directory:
 *
 * <pre>
 * /topics/&lt;namespace&gt;/&lt;topic&gt;/topic.json
 * {
 *   "name": "orders",
 *   "topicId": "3f0c...-...",
 *   "createdMs": 1764453600000,
 *   "partitions": ["v2026-11-29-22-00-00/0000-1260", "v2026-11-29-22-00-00/1260-2520"],
 *   "configs": {"cleanup.policy": "compact"}
 * }
 * </pre>
 *
 * Partition directories follow SeaweedMQ's naming: a version directory named after the creation
 * time in UTC, then the partition's range of the 2520-slot ring. N partitions split the ring as
 * SeaweedMQ does (range 2520/N, the last one runs to 2520). Partitions added later get a new
 * version directory; existing partitions never move.
 *
 * <p>A {@value #TOPIC_FILE} that cannot be read as such (not JSON, a name other than its
 * directory's, no partitions, a bad topic id or partition directory, as after an edit by hand)
 * makes its topic <i>unreadable</i>: it is logged and left out, the other topics load, and the name
 * stays taken (a create is refused rather than writing over it) until the topic is deleted or the
 * file repaired ({@link #reread}). The broker marks a topic so too when its configs or one of its
 * partitions cannot be used ({@link #markUnreadable}).
 */
public final class TopicCatalog {
  public static final String TOPIC_FILE = "topic.json";
  public static final int RING_SIZE = 2520;
  private static final Logger LOG = LoggerFactory.getLogger(TopicCatalog.class);

  /** A partition directory as a topic file names it: a version directory, then a ring range. */
  private static final Pattern PARTITION_DIR =
      Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*/[A-Za-z0-9_-][A-Za-z0-9._-]*");

  private static final DateTimeFormatter VERSION_FORMAT =
      DateTimeFormatter.ofPattern("'v'yyyy-MM-dd-HH-mm-ss").withZone(ZoneOffset.UTC);

  private final ObjectStore store;
  private final String namespaceDir;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, TopicInfo> topics = new TreeMap<>();

  /**
   * Topics in the store that are not served (see {@link #markUnreadable}), by name, with why.
   * Changed under the monitor; read without it, so that Metadata does not wait for a create, which
   * holds the monitor while it writes to the store.
   */
  private final Map<String, String> unreadable = new ConcurrentSkipListMap<>();

  public TopicCatalog(ObjectStore store, String namespace) {
    if (namespace.isEmpty() || namespace.contains("/")) {
      throw new IllegalArgumentException("bad namespace: " + namespace);
    }
    this.store = store;
    this.namespaceDir = "/topics/" + namespace;
  }

  /**
   * Reads every topic of the namespace from the store. A store failure is thrown; a topic file that
   * cannot be read makes its topic unreadable (see the class comment) and is logged.
   */
  public synchronized void load() throws IOException {
    topics.clear();
    unreadable.clear();
    for (ObjectInfo entry : store.list(namespaceDir)) {
      if (!entry.directory() || entry.name().startsWith(".")) {
        continue;
      }
      FileRead read = readTopicFile(entry.name());
      if (read.info() != null) {
        topics.put(read.info().name(), read.info());
      } else if (read.why() != null) {
        markUnreadable(entry.name(), read.why());
      }
    }
  }

  /** A topic file read: the topic, or why the file cannot be used; both null without a file. */
  private record FileRead(TopicInfo info, String why) {}

  private FileRead readTopicFile(String name) throws IOException {
    String file = topicDir(name) + "/" + TOPIC_FILE;
    Optional<ObjectInfo> stat = store.stat(file);
    if (stat.isEmpty()) {
      return new FileRead(null, null);
    }
    ByteBuf data = null;
    try {
      data = store.read(file, 0, (int) stat.get().size());
      return new FileRead(parse(data, name), null);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      return new FileRead(
          null,
          file
              + " is not JSON: "
              + e.getOriginalMessage()
              + (at == null
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    } catch (IOException | IllegalArgumentException e) {
      return new FileRead(null, file + " cannot be read: " + e.getMessage());
    } finally {
      if (data != null) {
        data.release();
      }
    }
  }

  /**
   * Reads the file of a topic that is not served ({@link #markUnreadable}) again, for a retry after
   * a repair: the topic if the file reads back now (still not served until {@link #markServed}),
   * else empty, with the reason brought up to date (and logged when it changed). Empty too when the
   * topic is served or gone; a topic whose file was removed outside the broker gives its name up.
   */
  public synchronized Optional<TopicInfo> reread(String name) throws IOException {
    if (!unreadable.containsKey(name)) {
      return Optional.empty();
    }
    FileRead read = readTopicFile(name);
    if (read.info() != null) {
      return Optional.of(read.info());
    }
    if (read.why() == null) {
      LOG.warn("Topic {}: its {} is gone; the name is free", name, TOPIC_FILE);
      unreadable.remove(name);
    } else {
      markUnreadable(name, read.why());
    }
    return Optional.empty();
  }

  /**
   * Takes a loaded topic out of service (its configs turned out unusable, say): it is logged, and
   * the name stays taken as for a topic file that cannot be read.
   */
  public synchronized void markUnreadable(String name, String why) {
    topics.remove(name);
    String before = unreadable.put(name, why);
    if (!why.equals(before)) {
      LOG.error(
          "Topic {} is not served: {}. A running broker tries it again every little while;"
              + " repair it, or delete the topic",
          name,
          why);
    }
  }

  /** Serves a topic again that {@link #markUnreadable} took out, as {@code info} describes it. */
  public synchronized void markServed(TopicInfo info) {
    unreadable.remove(info.name());
    topics.put(info.name(), info);
  }

  /** The topics that exist in the store but are not served, sorted. */
  public List<String> unreadableNames() {
    return List.copyOf(unreadable.keySet());
  }

  /** Why a topic that exists in the store is not served, if it is one of those. */
  public Optional<String> unreadable(String name) {
    return Optional.ofNullable(unreadable.get(name));
  }

  public synchronized List<TopicInfo> list() {
    return List.copyOf(topics.values());
  }

  public synchronized Optional<TopicInfo> get(String name) {
    return Optional.ofNullable(topics.get(name));
  }

  public synchronized Optional<TopicInfo> get(UUID topicId) {
    for (TopicInfo t : topics.values()) {
      if (t.topicId().equals(topicId)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** The store directory of a topic. */
  public String topicDir(String name) {
    return namespaceDir + "/" + name;
  }

  /** The store directory of one partition. */
  public String partitionDir(TopicInfo topic, int partition) {
    return topicDir(topic.name()) + "/" + topic.partitionDirs().get(partition);
  }

  /**
   * Creates a topic durably.
   *
   * @throws IllegalStateException if it exists
   */
  public synchronized TopicInfo create(
      String name, int partitions, Map<String, String> configs, long nowMs) throws IOException {
    checkName(name);
    if (topics.containsKey(name)) {
      throw new IllegalStateException("topic " + name + " already exists");
    }
    if (unreadable.containsKey(name)) {
      throw new IllegalStateException(
          "Topic '" + name + "' already exists, but is not served: " + unreadable.get(name));
    }
    if (partitions < 1 || partitions > RING_SIZE) {
      throw new IllegalArgumentException("partition count must be 1-" + RING_SIZE);
    }
    String version = VERSION_FORMAT.format(Instant.ofEpochMilli(nowMs));
    List<String> dirs = new ArrayList<>();
    for (String range : ringRanges(partitions)) {
      dirs.add(version + "/" + range);
    }
    TopicInfo info =
        new TopicInfo(name, UUID.randomUUID(), List.copyOf(dirs), new TreeMap<>(configs), nowMs);
    save(info);
    topics.put(name, info);
    return info;
  }

  /** Grows a topic to {@code total} partitions; new ones get a new version directory. */
  public synchronized TopicInfo addPartitions(String name, int total, long nowMs)
      throws IOException {
    TopicInfo old = require(name);
    if (total <= old.partitions()) {
      throw new IllegalArgumentException(
          "topic " + name + " has " + old.partitions() + " partitions; cannot go to " + total);
    }
    if (total > RING_SIZE) {
      throw new IllegalArgumentException("partition count must be at most " + RING_SIZE);
    }
    String version = VERSION_FORMAT.format(Instant.ofEpochMilli(nowMs));
    for (long bump = 1000; usesVersion(old, version); bump += 1000) {
      // Two changes within a second: keep version directories distinct.
      version = VERSION_FORMAT.format(Instant.ofEpochMilli(nowMs + bump));
    }
    List<String> ranges = ringRanges(total);
    List<String> dirs = new ArrayList<>(old.partitionDirs());
    for (int p = old.partitions(); p < total; p++) {
      dirs.add(version + "/" + ranges.get(p));
    }
    TopicInfo info =
        new TopicInfo(name, old.topicId(), List.copyOf(dirs), old.configs(), old.createdMs());
    save(info);
    topics.put(name, info);
    return info;
  }

  private static boolean usesVersion(TopicInfo topic, String version) {
    return topic.partitionDirs().stream().anyMatch(d -> d.startsWith(version + "/"));
  }

  /** Replaces the explicitly set configs of a topic. */
  public synchronized TopicInfo setConfigs(String name, Map<String, String> configs)
      throws IOException {
    TopicInfo old = require(name);
    TopicInfo info =
        new TopicInfo(
            name, old.topicId(), old.partitionDirs(), new TreeMap<>(configs), old.createdMs());
    save(info);
    topics.put(name, info);
    return info;
  }

  /** Deletes a topic and all its data; an unreadable one too. */
  public synchronized void delete(String name) throws IOException {
    if (unreadable.containsKey(name)) {
      store.delete(topicDir(name) + "/" + TOPIC_FILE);
      unreadable.remove(name);
      store.delete(topicDir(name));
      return;
    }
    require(name);
    // The metadata goes first, so a crash half way leaves data without a topic, never a topic
    // with missing data; load() ignores directories without topic.json.
    store.delete(topicDir(name) + "/" + TOPIC_FILE);
    topics.remove(name);
    store.delete(topicDir(name));
  }

  private TopicInfo require(String name) {
    TopicInfo info = topics.get(name);
    if (info == null) {
      throw new IllegalStateException("no topic " + name);
    }
    return info;
  }

  /** Ring ranges of N partitions, SeaweedMQ style: {@code 0000-1260}, {@code 1260-2520}. */
  public static List<String> ringRanges(int n) {
    int size = RING_SIZE / n;
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int start = i * size;
      int stop = i == n - 1 ? RING_SIZE : (i + 1) * size;
      out.add(String.format("%04d-%04d", start, stop));
    }
    return out;
  }

  private static void checkName(String name) {
    if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("illegal topic name '" + name + "'");
    }
  }

  private void save(TopicInfo info) throws IOException {
    ObjectNode root = json.createObjectNode();
    root.put("name", info.name());
    root.put("topicId", info.topicId().toString());
    root.put("createdMs", info.createdMs());
    ArrayNode parts = root.putArray("partitions");
    info.partitionDirs().forEach(parts::add);
    ObjectNode configs = root.putObject("configs");
    info.configs().forEach(configs::put);
    byte[] bytes = json.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    store.put(topicDir(info.name()) + "/" + TOPIC_FILE, Unpooled.wrappedBuffer(bytes), null);
  }

  /**
   * A topic file's content, checked against what {@link #save} writes.
   *
   * @throws IOException if it is not JSON
   * @throws IllegalArgumentException if it is not a topic file of directory {@code dirName}
   */
  private TopicInfo parse(ByteBuf data, String dirName) throws IOException {
    byte[] bytes = new byte[data.readableBytes()];
    data.getBytes(data.readerIndex(), bytes);
    JsonNode root = json.readTree(bytes);
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    String name = root.path("name").asText();
    if (!name.equals(dirName)) {
      throw new IllegalArgumentException(
          "its name \"" + name + "\" is not its directory's, \"" + dirName + "\"");
    }
    List<String> dirs = new ArrayList<>();
    for (JsonNode n : root.path("partitions")) {
      String dir = n.asText();
      if (!PARTITION_DIR.matcher(dir).matches()) {
        throw new IllegalArgumentException("bad partition directory \"" + dir + "\"");
      }
      dirs.add(dir);
    }
    if (dirs.isEmpty()) {
      throw new IllegalArgumentException("it lists no partitions");
    }
    Map<String, String> configs = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : root.path("configs").properties()) {
      configs.put(e.getKey(), e.getValue().asText());
    }
    return new TopicInfo(
        name,
        UUID.fromString(root.path("topicId").asText()),
        Collections.unmodifiableList(dirs),
        Collections.unmodifiableMap(configs),
        root.path("createdMs").asLong());
  }
}
