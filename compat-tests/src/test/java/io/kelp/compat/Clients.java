package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The Java clients as a user configures them: only the bootstrap address and a few settings. */
final class Clients {
  private Clients() {}

  static KafkaProducer<String, String> producer(String bootstrap, Map<String, Object> overrides) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    p.putAll(overrides);
    return new KafkaProducer<>(p);
  }

  static KafkaProducer<String, String> producer(String bootstrap) {
    return producer(bootstrap, Map.of());
  }

  /** A consumer without a group: it reads the partitions it is assigned. */
  static KafkaConsumer<String, String> consumer(String bootstrap, Map<String, Object> overrides) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    p.putAll(overrides);
    return new KafkaConsumer<>(p);
  }

  static KafkaConsumer<String, String> consumer(String bootstrap) {
    return consumer(bootstrap, Map.of());
  }

  static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
    return Admin.create(p);
  }

  /** Creates a topic with replication factor 1 and waits for the result. */
  static void createTopic(Admin admin, String topic, int partitions) {
    get(admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all());
  }

  /** Waits at most 30 s for a client future; a failure is rethrown as its cause. */
  static <T> T get(KafkaFuture<T> future) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within 30 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Reads every record of the given partitions, from their beginning up to their end offsets as
   * they are when called, in offset order per partition.
   */
  static Map<TopicPartition, List<ConsumerRecord<String, String>>> readAll(
      KafkaConsumer<String, String> consumer, Collection<TopicPartition> partitions) {
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    Map<TopicPartition, List<ConsumerRecord<String, String>>> out = new HashMap<>();
    partitions.forEach(tp -> out.put(tp, new ArrayList<>()));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!reachedEnd(consumer, end)) {
      if (System.nanoTime() > deadline) {
        fail("did not reach end offsets " + end + " within 60 s; read " + counts(out));
      }
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
        out.get(new TopicPartition(r.topic(), r.partition())).add(r);
      }
    }
    return out;
  }

  /** Reads one partition from its beginning to its current end. */
  static List<ConsumerRecord<String, String>> readAll(
      KafkaConsumer<String, String> consumer, TopicPartition partition) {
    return readAll(consumer, List.of(partition)).get(partition);
  }

  private static boolean reachedEnd(
      KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static Map<TopicPartition, Integer> counts(
      Map<TopicPartition, List<ConsumerRecord<String, String>>> records) {
    Map<TopicPartition, Integer> counts = new HashMap<>();
    records.forEach((tp, list) -> counts.put(tp, list.size()));
    return counts;
  }
}
