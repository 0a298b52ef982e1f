package io.kelp.gateway.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.gateway.testing.TestBroker;
import io.kelp.seaweed.WeedProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One broker on a real SeaweedFS: what it acknowledged is there after a restart. The filer serves
 * gRPC on a port of its own, so the broker is also shown to reach it through {@code --filer
 * HOST:PORT.GRPC_PORT}.
 */
class SeaweedBrokerSmokeTest {
  @TempDir Path dir;

  @Test
  void producedRecordsSurviveABrokerRestartAndLeaveTheLocalDiskEmpty() throws Exception {
    try (WeedProcess weed = WeedProcess.startWithOwnFilerGrpcPort();
        TestBroker kelp =
            TestBroker.start(
                dir.resolve("unused"),
                Map.of(BrokerConfig.STORE, "seaweedfs", BrokerConfig.FILER, weed.filerAddress()))) {
      try (Admin admin = kelp.admin()) {
        admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
        // The log directory is the namespace's directory on the filer, of unknown capacity.
        Map<String, LogDirDescription> dirs =
            admin.describeLogDirs(List.of(0)).allDescriptions().get().get(0);
        LogDirDescription d = dirs.get("seaweedfs:" + weed.filerAddress() + "/topics/kafka");
        assertNotNull(d, "log dirs: " + dirs.keySet());
        assertTrue(d.replicaInfos().containsKey(new TopicPartition("orders", 1)));
        assertFalse(d.totalBytes().isPresent());
      }
      try (KafkaProducer<String, String> p =
          kelp.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
        for (int i = 0; i < 100; i++) {
          p.send(new ProducerRecord<>("orders", i % 2, "k" + i, "v" + i)).get();
        }
      }
      kelp.restart();
      List<TopicPartition> tps =
          List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1));
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      try (KafkaConsumer<String, String> c = kelp.consumer(Map.of())) {
        c.assign(tps);
        c.seekToBeginning(tps);
        long deadline = System.currentTimeMillis() + 30000;
        while (got.size() < 100 && System.currentTimeMillis() < deadline) {
          c.poll(Duration.ofMillis(200)).forEach(got::add);
        }
      }
      assertEquals(100, got.size());
      assertEquals(false, Files.exists(dir.resolve("unused")), "nothing on the local disk");
    }
  }
}
