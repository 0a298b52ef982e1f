package io.kelp.gateway.api;

import io.kelp.gateway.api.acls.CreateAclsHandler;
import io.kelp.gateway.api.acls.DeleteAclsHandler;
import io.kelp.gateway.api.acls.DescribeAclsHandler;
import io.kelp.gateway.api.alterconfigs.AlterConfigsHandler;
import io.kelp.gateway.api.apiversions.ApiVersionsHandler;
import io.kelp.gateway.api.consumergroupdescribe.ConsumerGroupDescribeHandler;
import io.kelp.gateway.api.consumergroupheartbeat.ConsumerGroupHeartbeatHandler;
import io.kelp.gateway.api.createpartitions.CreatePartitionsHandler;
import io.kelp.gateway.api.createtopics.CreateTopicsHandler;
import io.kelp.gateway.api.deletegroups.DeleteGroupsHandler;
import io.kelp.gateway.api.deleterecords.DeleteRecordsHandler;
import io.kelp.gateway.api.deletetopics.DeleteTopicsHandler;
import io.kelp.gateway.api.describecluster.DescribeClusterHandler;
import io.kelp.gateway.api.describeconfigs.DescribeConfigsHandler;
import io.kelp.gateway.api.describegroups.DescribeGroupsHandler;
import io.kelp.gateway.api.describelogdirs.DescribeLogDirsHandler;
import io.kelp.gateway.api.describetopicpartitions.DescribeTopicPartitionsHandler;
import io.kelp.gateway.api.fetch.FetchHandler;
import io.kelp.gateway.api.findcoordinator.FindCoordinatorHandler;
import io.kelp.gateway.api.heartbeat.HeartbeatHandler;
import io.kelp.gateway.api.incrementalalterconfigs.IncrementalAlterConfigsHandler;
import io.kelp.gateway.api.initproducerid.InitProducerIdHandler;
import io.kelp.gateway.api.joingroup.JoinGroupHandler;
import io.kelp.gateway.api.leavegroup.LeaveGroupHandler;
import io.kelp.gateway.api.listgroups.ListGroupsHandler;
import io.kelp.gateway.api.listoffsets.ListOffsetsHandler;
import io.kelp.gateway.api.metadata.MetadataHandler;
import io.kelp.gateway.api.offsetcommit.OffsetCommitHandler;
import io.kelp.gateway.api.offsetdelete.OffsetDeleteHandler;
import io.kelp.gateway.api.offsetfetch.OffsetFetchHandler;
import io.kelp.gateway.api.offsetforleaderepoch.OffsetForLeaderEpochHandler;
import io.kelp.gateway.api.produce.ProduceHandler;
import io.kelp.gateway.api.syncgroup.SyncGroupHandler;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The table of handlers by API key. ApiVersions answers from this table, so what Kelp advertises is
 * exactly what it handles; keys without a handler are not advertised and close the connection.
 */
public final class ApiHandlers {
  private final ApiHandler[] byKey = new ApiHandler[128];
  private final List<ApiHandler> all = new ArrayList<>();

  /** Every API Kelp serves now. Transaction APIs come later. */
  public static ApiHandlers standard() {
    ApiHandlers t = new ApiHandlers();
    t.register(new ProduceHandler())
        .register(new FetchHandler())
        .register(new ListOffsetsHandler())
        .register(new MetadataHandler())
        .register(new ApiVersionsHandler(t))
        .register(new CreateTopicsHandler())
        .register(new DeleteTopicsHandler())
        .register(new DeleteRecordsHandler())
        .register(new InitProducerIdHandler())
        .register(new OffsetForLeaderEpochHandler())
        .register(new DescribeConfigsHandler())
        .register(new AlterConfigsHandler())
        .register(new DescribeLogDirsHandler())
        .register(new CreatePartitionsHandler())
        .register(new IncrementalAlterConfigsHandler())
        .register(new DescribeClusterHandler())
        .register(new DescribeTopicPartitionsHandler())
        .register(new FindCoordinatorHandler())
        .register(new JoinGroupHandler())
        .register(new SyncGroupHandler())
        .register(new HeartbeatHandler())
        .register(new LeaveGroupHandler())
        .register(new OffsetCommitHandler())
        .register(new OffsetFetchHandler())
        .register(new OffsetDeleteHandler())
        .register(new ListGroupsHandler())
        .register(new DescribeGroupsHandler())
        .register(new DeleteGroupsHandler())
        .register(new ConsumerGroupHeartbeatHandler())
        .register(new ConsumerGroupDescribeHandler())
        .register(new DescribeAclsHandler())
        .register(new CreateAclsHandler())
        .register(new DeleteAclsHandler());
    return t;
  }

  /** Adds a handler; one per key. */
  public ApiHandlers register(ApiHandler handler) {
    short key = handler.apiKey();
    if (key < 0 || key >= byKey.length) {
      throw new IllegalArgumentException("API key out of range: " + key);
    }
    if (byKey[key] != null) {
      throw new IllegalArgumentException("two handlers for API key " + key);
    }
    byKey[key] = handler;
    all.add(handler);
    all.sort((a, b) -> Short.compare(a.apiKey(), b.apiKey()));
    return this;
  }

  /** The handler for {@code apiKey}, or null. */
  public ApiHandler get(int apiKey) {
    return apiKey >= 0 && apiKey < byKey.length ? byKey[apiKey] : null;
  }

  /** Every handler, by key. */
  public List<ApiHandler> all() {
    return Collections.unmodifiableList(all);
  }
}
