package io.kelp.gateway.testing;

import io.kelp.gateway.server.Broker;
import io.kelp.gateway.server.BrokerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A real broker in this JVM on free ports with its own data directory, and Kafka clients pointed at
 * it.
 */
public final class TestBroker implements AutoCloseable {
  private final Path dataDir;
  private final Map<String, String> settings;
  private Broker broker;
  private int port;

  private TestBroker(Path dataDir, Map<String, String> settings) {
    this.dataDir = dataDir;
    this.settings = settings;
  }

  /** Starts a broker storing under {@code dataDir}, with extra settings. */
  public static TestBroker start(Path dataDir, Map<String, String> extra) throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put(BrokerConfig.LISTEN, "127.0.0.1:0");
    settings.put(BrokerConfig.METRICS_LISTEN, "127.0.0.1:0");
    settings.put(BrokerConfig.DATA_DIR, dataDir.toString());
    settings.put(BrokerConfig.NETWORK_THREADS, "2");
    settings.putAll(extra);
    TestBroker t = new TestBroker(dataDir, settings);
    t.broker = Broker.start(BrokerConfig.of(settings));
    t.port = t.broker.address().port();
    return t;
  }

  public static TestBroker start(Path dataDir) throws Exception {
    return start(dataDir, Map.of());
  }

  /** Stops the broker cleanly and starts it again on the same port and data directory. */
  public void restart() throws Exception {
    broker.close();
    Map<String, String> again = new HashMap<>(settings);
    again.put(BrokerConfig.LISTEN, "127.0.0.1:" + port);
    broker = Broker.start(BrokerConfig.of(again));
  }

  public Broker broker() {
    return broker;
  }

  public Path dataDir() {
    return dataDir;
  }

  public String bootstrap() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    return Admin.create(p);
  }

  public KafkaProducer<String, String> producer(Map<String, Object> extra) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20000);
    p.putAll(extra);
    return new KafkaProducer<>(p);
  }

  public KafkaConsumer<String, String> consumer(Map<String, Object> extra) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.putAll(extra);
    return new KafkaConsumer<>(p);
  }

  @Override
  public void close() throws Exception {
    broker.close();
  }
}
