import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consume throughput without a consumer group: assigns every partition of a topic, reads from the
 * beginning until it has the asked number of records, and prints one line: "records bytes ms
 * MB/s". ConsumerPerformance needs a group coordinator; this measures the fetch path alone, the
 * same way on both brokers. Its fetch settings are ConsumerPerformance's defaults.
 *
 * <p>Run as a source file: java -cp 'kafka-libs/*' ConsumeAssigned.java BOOTSTRAP TOPIC RECORDS
 */
public final class ConsumeAssigned {
  public static void main(String[] args) {
    String bootstrap = args[0];
    String topic = args[1];
    long wanted = Long.parseLong(args[2]);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1024 * 1024);
    p.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 2 * 1024 * 1024);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long records = 0;
      long bytes = 0;
      long start = System.nanoTime();
      long lastRecord = start;
      while (records < wanted) {
        var batch = consumer.poll(Duration.ofMillis(100));
        if (batch.isEmpty()) {
          if (System.nanoTime() - lastRecord > Duration.ofSeconds(30).toNanos()) {
            System.err.println("no record for 30 s after " + records + " of " + wanted);
            System.exit(1);
          }
          continue;
        }
        lastRecord = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          records++;
          bytes += (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
        }
      }
      double ms = (System.nanoTime() - start) / 1e6;
      System.out.printf("%d %d %.0f %.2f%n", records, bytes, ms, bytes / 1048576.0 / (ms / 1000));
    }
  }
}
