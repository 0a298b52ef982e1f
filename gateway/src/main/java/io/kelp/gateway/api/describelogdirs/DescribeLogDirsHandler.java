package io.kelp.gateway.api.describelogdirs;

import io.kelp.codec.message.DescribeLogDirsRequest;
import io.kelp.codec.message.DescribeLogDirsRequest.DescribableLogDirTopic;
import io.kelp.codec.message.DescribeLogDirsResponse;
import io.kelp.codec.message.DescribeLogDirsResponse.DescribeLogDirsPartition;
import io.kelp.codec.message.DescribeLogDirsResponse.DescribeLogDirsResult;
import io.kelp.codec.message.DescribeLogDirsResponse.DescribeLogDirsTopic;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.engine.log.PartitionLog;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.topic.LiveTopic;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeLogDirs (key 35), versions 1-4: one log directory, the data directory of the local store
 * or the namespace's directory on the SeaweedFS filer, with each partition's size (bytes in the
 * store and in memory) and offset lag 0; v4 adds the directory's total and usable bytes, known for
 * the local store only (SeaweedFS's capacity is its volume servers', -1 here). A null topic list
 * means all topics; unknown topics and partitions are left out, as Kafka does.
 */
public final class DescribeLogDirsHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 35;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    DescribeLogDirsRequest r = (DescribeLogDirsRequest) request;
    return Blocking.run(ctx.broker().blocking(), () -> respond(ctx.broker(), r));
  }

  private DescribeLogDirsResponse respond(BrokerServices b, DescribeLogDirsRequest r) {
    DescribeLogDirsResult dir = new DescribeLogDirsResult().setLogDir(b.logDir());
    if (b.localStore()) {
      try {
        FileStore fs = Files.getFileStore(b.dataDir());
        dir.setTotalBytes(fs.getTotalSpace()).setUsableBytes(fs.getUsableSpace());
      } catch (IOException e) {
        // sizes stay unknown (-1)
      }
    }
    if (r.topics() == null) {
      for (LiveTopic t : b.topics().list()) {
        dir.topics().add(describe(t, null));
      }
    } else {
      for (DescribableLogDirTopic asked : r.topics()) {
        Optional<LiveTopic> t = b.topics().get(asked.topic());
        if (t.isPresent()) {
          DescribeLogDirsTopic out = describe(t.get(), asked.partitions());
          if (!out.partitions().isEmpty()) {
            dir.topics().add(out);
          }
        }
      }
    }
    DescribeLogDirsResponse response = new DescribeLogDirsResponse();
    response.results().add(dir);
    return response;
  }

  private static DescribeLogDirsTopic describe(LiveTopic topic, List<Integer> partitions) {
    List<Integer> which = partitions;
    if (which == null) {
      which = new ArrayList<>();
      for (int p = 0; p < topic.partitions(); p++) {
        which.add(p);
      }
    }
    DescribeLogDirsTopic out = new DescribeLogDirsTopic().setName(topic.name());
    for (int p : which) {
      PartitionLog log = topic.log(p);
      if (log != null) {
        out.partitions()
            .add(
                new DescribeLogDirsPartition()
                    .setPartitionIndex(p)
                    .setPartitionSize(log.sizeInBytes())
                    .setOffsetLag(0)
                    .setIsFutureKey(false));
      }
    }
    return out;
  }
}
