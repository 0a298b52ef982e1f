package io.kelp.gateway.coordinator.consumer;

import io.kelp.engine.catalog.TopicCatalog;
import io.kelp.engine.log.LogEngine;
import io.kelp.engine.log.LogEngines;
import io.kelp.engine.store.LocalObjectStore;
import io.kelp.engine.store.ObjectStore;
import io.kelp.gateway.server.BrokerConfig;
import io.kelp.gateway.topic.TopicRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.file.Path;
import java.util.Map;

/** A real topic registry over a local store in a test directory. */
final class TestTopics implements AutoCloseable {
  final ObjectStore store;
  final LogEngine engine;
  final TopicRegistry registry;

  TestTopics(Path dir) throws Exception {
    BrokerConfig config = BrokerConfig.of(Map.of(BrokerConfig.DATA_DIR, dir.toString()));
    store = new LocalObjectStore(dir, PooledByteBufAllocator.DEFAULT);
    engine = LogEngines.create(store, config.engineConfig());
    registry =
        new TopicRegistry(new TopicCatalog(store, "kafka"), engine, 1, System::currentTimeMillis);
    registry.openAll();
  }

  @Override
  public void close() throws Exception {
    engine.close();
    store.close();
  }
}
