package io.kelp.gateway.coordinator;

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
public final class TestTopics implements AutoCloseable {
  public final ObjectStore store;
  public final LogEngine engine;
  public final TopicRegistry registry;

  public TestTopics(Path dir) throws Exception {
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
