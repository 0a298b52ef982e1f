package io.kelp.compat;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 while an idempotent acks=all producer sends: every acknowledged record is read back
 * exactly once, at the offset it was acknowledged with, in send order per partition. Records whose
 * send failed may or may not be there, but never twice.
 */
class CrashRecoveryTest {
  private static final int PARTITIONS = 3;
  private static final int KILLS = 4;
  private static final String TOPIC = "crash";

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void acknowledgedRecordsSurviveRepeatedKills() throws Exception {
    long seed = Long.getLong("compat.crash.seed", System.nanoTime());
    Random random = new Random(seed);
    System.out.println(
        "CrashRecoveryTest seed " + seed + " (rerun with -Dcompat.crash.seed=" + seed + ")");
    try (KelpProcess kelp = KelpProcess.start("CrashRecoveryTest")) {
      try (Admin admin = Clients.admin(kelp.bootstrap())) {
        Clients.createTopic(admin, TOPIC, PARTITIONS);
      }
      try (NumberedLoad load =
          new NumberedLoad(
              kelp.bootstrap(), TOPIC, PARTITIONS, NumberedLoad.resilientProducer(120_000))) {
        for (int kill = 1; kill <= KILLS; kill++) {
          // every kill lands while records are flowing: first some acknowledgements, then a
          // random pause
          load.awaitProgress(500, "before kill " + kill);
          Thread.sleep(random.nextInt(2_000));
          int ackedBefore = load.totalAcked();
          kelp.kill();
          System.out.println(
              "kill " + kill + ": " + ackedBefore + " acknowledged, " + load.sent() + " sent");
          Thread.sleep(random.nextInt(1_000));
          kelp.restart();
        }
        load.awaitProgress(3_000, "after the last restart");
        load.finish();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(kelp.bootstrap())) {
          load.verify(consumer);
        }
      }
      kelp.stop();
    }
  }
}
