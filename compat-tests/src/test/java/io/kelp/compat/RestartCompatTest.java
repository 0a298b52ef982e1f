package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/** A clean stop (SIGTERM) and a start on the same data: topics, configs and records are back. */
class RestartCompatTest {
  @Test
  void cleanStopAndRestartKeepsTopicsConfigsAndRecords() throws Exception {
    try (KelpProcess kelp = KelpProcess.start("RestartCompatTest")) {
      String topic = "kept-across-restart";
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        NewTopic newTopic =
            new NewTopic(topic, 2, (short) 1).configs(Map.of("retention.ms", "86400000"));
        Clients.get(admin.createTopics(List.of(newTopic)).all());
      }
      // acks=1: acknowledged before any flush, so the clean stop must flush them
      try (KafkaProducer<String, String> producer =
          Clients.producer(
              kelp.bootstrap(),
              Map.of(
                  ProducerConfig.ACKS_CONFIG,
                  "1",
                  ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                  false))) {
        for (int i = 0; i < 500; i++) {
          producer.send(new ProducerRecord<>(topic, i % 2, "k" + i, "before " + i));
        }
        producer.flush();
      }

      kelp.stop();
      kelp.restart();

      TopicPartition p0 = new TopicPartition(topic, 0);
      TopicPartition p1 = new TopicPartition(topic, 1);
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        assertEquals(
            2,
            Clients.get(admin.describeTopics(List.of(topic)).allTopicNames())
                .get(topic)
                .partitions()
                .size());
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        ConfigEntry retention =
            Clients.get(admin.describeConfigs(List.of(resource)).all())
                .get(resource)
                .get("retention.ms");
        assertEquals("86400000", retention.value());
      }
      try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
        var read = Clients.readAll(consumer, List.of(p0, p1));
        assertEquals(250, read.get(p0).size());
        assertEquals(250, read.get(p1).size());
        for (int j = 0; j < 250; j++) {
          assertEquals("before " + (2 * j), read.get(p0).get(j).value());
          assertEquals("before " + (2 * j + 1), read.get(p1).get(j).value());
        }
      }
      try (KafkaProducer<String, String> producer = Clients.producer(kelp.bootstrap())) {
        long offset =
            producer
                .send(new ProducerRecord<>(topic, 0, "k", "after"))
                .get(30, TimeUnit.SECONDS)
                .offset();
        assertEquals(250, offset, "offsets continue after a restart, never reused");
      }
      try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
        List<ConsumerRecord<String, String>> read = Clients.readAll(consumer, p0);
        assertEquals("after", read.get(250).value());
      }
      kelp.stop();
    }
  }
}
