package io.kelp.gateway.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codec.message.ConsumerGroupDescribeRequest;
import io.kelp.codec.message.ConsumerGroupDescribeResponse;
import io.kelp.codec.message.ConsumerGroupHeartbeatRequest;
import io.kelp.codec.message.ConsumerGroupHeartbeatResponse;
import io.kelp.codec.message.DeleteGroupsRequest;
import io.kelp.codec.message.DeleteGroupsResponse;
import io.kelp.codec.message.DescribeGroupsRequest;
import io.kelp.codec.message.DescribeGroupsResponse;
import io.kelp.codec.message.HeartbeatRequest;
import io.kelp.codec.message.HeartbeatResponse;
import io.kelp.codec.message.JoinGroupRequest;
import io.kelp.codec.message.JoinGroupRequest.JoinGroupRequestProtocol;
import io.kelp.codec.message.JoinGroupResponse;
import io.kelp.codec.message.LeaveGroupRequest;
import io.kelp.codec.message.LeaveGroupRequest.MemberIdentity;
import io.kelp.codec.message.LeaveGroupResponse;
import io.kelp.codec.message.ListGroupsRequest;
import io.kelp.codec.message.ListGroupsResponse;
import io.kelp.codec.message.OffsetCommitRequest;
import io.kelp.codec.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.kelp.codec.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.kelp.codec.message.OffsetCommitResponse;
import io.kelp.codec.message.OffsetDeleteRequest;
import io.kelp.codec.message.OffsetDeleteRequest.OffsetDeleteRequestPartition;
import io.kelp.codec.message.OffsetDeleteRequest.OffsetDeleteRequestTopic;
import io.kelp.codec.message.OffsetDeleteResponse;
import io.kelp.codec.message.OffsetFetchRequest;
import io.kelp.codec.message.OffsetFetchRequest.OffsetFetchRequestGroup;
import io.kelp.codec.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import io.kelp.codec.message.OffsetFetchRequest.OffsetFetchRequestTopics;
import io.kelp.codec.message.OffsetFetchResponse;
import io.kelp.codec.message.SyncGroupRequest;
import io.kelp.codec.message.SyncGroupResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.RequestHeader;
import io.kelp.engine.TopicPartition;
import io.kelp.gateway.api.consumergroupdescribe.ConsumerGroupDescribeHandler;
import io.kelp.gateway.api.consumergroupheartbeat.ConsumerGroupHeartbeatHandler;
import io.kelp.gateway.api.deletegroups.DeleteGroupsHandler;
import io.kelp.gateway.api.describegroups.DescribeGroupsHandler;
import io.kelp.gateway.api.heartbeat.HeartbeatHandler;
import io.kelp.gateway.api.joingroup.JoinGroupHandler;
import io.kelp.gateway.api.leavegroup.LeaveGroupHandler;
import io.kelp.gateway.api.listgroups.ListGroupsHandler;
import io.kelp.gateway.api.offsetcommit.OffsetCommitHandler;
import io.kelp.gateway.api.offsetdelete.OffsetDeleteHandler;
import io.kelp.gateway.api.offsetfetch.OffsetFetchHandler;
import io.kelp.gateway.api.syncgroup.SyncGroupHandler;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.MemoryGroupStore;
import io.kelp.gateway.coordinator.OffsetAndMetadata;
import io.kelp.gateway.coordinator.TestTopics;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import io.kelp.gateway.coordinator.consumer.ConsumerGroups;
import io.kelp.gateway.metrics.KelpMetrics;
import io.kelp.gateway.server.BrokerConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every group API, for a group the coordinator could not read back yet: answered
 * COORDINATOR_LOAD_IN_PROGRESS where Kafka's answer carries it (so that clients retry), and nothing
 * about the group changed. The group failing to load is the in-memory store's fault (a volume
 * server down does this on SeaweedFS; SeaweedFaultTest does it for real).
 */
class GroupRequestsWhileLoadingTest {
  private static final short LOADING = Errors.COORDINATOR_LOAD_IN_PROGRESS;
  private static final String GROUP = "stuck";

  @TempDir Path dir;
  private TestTopics topics;
  private final MemoryGroupStore store = new MemoryGroupStore();
  private GroupCoordinator coordinator;
  private BrokerServices services;

  @BeforeEach
  void setUp() throws Exception {
    topics = new TestTopics(dir);
    topics.registry.create("t", 1, Map.of());
    store.writeOffsets(
        GROUP,
        Map.of(
            new TopicPartition("t", 0),
            new OffsetAndMetadata(42, -1, "", 1, OffsetAndMetadata.NO_EXPIRY)),
        List.of());
    store.unreadable(GROUP);
    coordinator =
        new GroupCoordinator(
            store, topics.registry, GroupConfig.defaults(), System::currentTimeMillis);
    ClassicGroups.register(coordinator);
    ConsumerGroups.register(coordinator);
    coordinator.load(2_000);
    services =
        new BrokerServices(
            BrokerConfig.of(Map.of()),
            "cluster",
            topics.registry,
            null,
            null,
            Runnable::run,
            new KelpMetrics(),
            System::currentTimeMillis);
    services.groups(coordinator);
  }

  @AfterEach
  void tearDown() throws Exception {
    coordinator.close();
    topics.close();
  }

  @SuppressWarnings("unchecked")
  private <T extends ApiMessage> T call(ApiHandler handler, int version, ApiMessage request)
      throws Exception {
    RequestHeader header =
        new RequestHeader(handler.apiKey(), (short) version, 1, "loading-test-client");
    RequestContext ctx =
        new RequestContext(
            header, (short) version, new InetSocketAddress("127.0.0.1", 5555), services, null);
    return (T) handler.handle(ctx, request).get(10, TimeUnit.SECONDS);
  }

  /** An OffsetFetch before v8: one group, partition 0 of topic t. */
  private static OffsetFetchRequest offsetFetchOfPartition0() {
    return new OffsetFetchRequest()
        .setGroupId(GROUP)
        .setTopics(
            List.of(new OffsetFetchRequestTopic().setName("t").setPartitionIndexes(List.of(0))));
  }

  @Test
  void everyGroupApiAnswersLoadInProgressForAGroupNotReadBackYet() throws Exception {
    JoinGroupResponse join =
        call(
            new JoinGroupHandler(),
            9,
            new JoinGroupRequest()
                .setGroupId(GROUP)
                .setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(10_000)
                .setProtocolType("consumer")
                .setProtocols(
                    List.of(
                        new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]))));
    assertEquals(LOADING, join.errorCode(), "JoinGroup");
    SyncGroupResponse sync =
        call(
            new SyncGroupHandler(),
            5,
            new SyncGroupRequest().setGroupId(GROUP).setMemberId("m").setGenerationId(1));
    assertEquals(LOADING, sync.errorCode(), "SyncGroup");
    HeartbeatResponse heartbeat =
        call(
            new HeartbeatHandler(),
            4,
            new HeartbeatRequest().setGroupId(GROUP).setMemberId("m").setGenerationId(1));
    assertEquals(LOADING, heartbeat.errorCode(), "Heartbeat");
    LeaveGroupResponse leave =
        call(
            new LeaveGroupHandler(),
            5,
            new LeaveGroupRequest()
                .setGroupId(GROUP)
                .setMembers(List.of(new MemberIdentity().setMemberId("m"))));
    assertEquals(LOADING, leave.errorCode(), "LeaveGroup");

    OffsetCommitResponse commit =
        call(
            new OffsetCommitHandler(),
            8,
            new OffsetCommitRequest()
                .setGroupId(GROUP)
                .setTopics(
                    List.of(
                        new OffsetCommitRequestTopic()
                            .setName("t")
                            .setPartitions(
                                List.of(
                                    new OffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(1))))));
    assertEquals(LOADING, commit.topics().get(0).partitions().get(0).errorCode(), "OffsetCommit");

    OffsetFetchResponse fetchV8 =
        call(
            new OffsetFetchHandler(),
            8,
            new OffsetFetchRequest()
                .setGroups(
                    List.of(
                        new OffsetFetchRequestGroup()
                            .setGroupId(GROUP)
                            .setTopics(
                                List.of(
                                    new OffsetFetchRequestTopics()
                                        .setName("t")
                                        .setPartitionIndexes(List.of(0)))))));
    assertEquals(LOADING, fetchV8.groups().get(0).errorCode(), "OffsetFetch v8");
    OffsetFetchResponse fetchV1 = call(new OffsetFetchHandler(), 1, offsetFetchOfPartition0());
    assertEquals(
        LOADING,
        fetchV1.topics().get(0).partitions().get(0).errorCode(),
        "OffsetFetch v1 carries the error per partition");
    assertEquals(-1, fetchV1.topics().get(0).partitions().get(0).committedOffset());
    OffsetFetchResponse fetchV5 = call(new OffsetFetchHandler(), 5, offsetFetchOfPartition0());
    assertEquals(LOADING, fetchV5.errorCode(), "OffsetFetch v5");

    OffsetDeleteResponse offsetDelete =
        call(
            new OffsetDeleteHandler(),
            0,
            new OffsetDeleteRequest()
                .setGroupId(GROUP)
                .setTopics(
                    List.of(
                        new OffsetDeleteRequestTopic()
                            .setName("t")
                            .setPartitions(
                                List.of(
                                    new OffsetDeleteRequestPartition().setPartitionIndex(0))))));
    assertEquals(LOADING, offsetDelete.errorCode(), "OffsetDelete");

    DescribeGroupsResponse describe =
        call(new DescribeGroupsHandler(), 5, new DescribeGroupsRequest().setGroups(List.of(GROUP)));
    assertEquals(LOADING, describe.groups().get(0).errorCode(), "DescribeGroups");
    DeleteGroupsResponse delete =
        call(
            new DeleteGroupsHandler(), 2, new DeleteGroupsRequest().setGroupsNames(List.of(GROUP)));
    assertEquals(LOADING, delete.results().get(0).errorCode(), "DeleteGroups");
    ListGroupsResponse list = call(new ListGroupsHandler(), 4, new ListGroupsRequest());
    assertEquals(LOADING, list.errorCode(), "ListGroups while a group is not read back");

    ConsumerGroupHeartbeatResponse consumerHeartbeat =
        call(
            new ConsumerGroupHeartbeatHandler(),
            0,
            new ConsumerGroupHeartbeatRequest()
                .setGroupId(GROUP)
                .setMemberId("")
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(10_000)
                .setSubscribedTopicNames(List.of("t"))
                .setTopicPartitions(List.of()));
    assertEquals(LOADING, consumerHeartbeat.errorCode(), "ConsumerGroupHeartbeat");
    ConsumerGroupDescribeResponse consumerDescribe =
        call(
            new ConsumerGroupDescribeHandler(),
            0,
            new ConsumerGroupDescribeRequest().setGroupIds(List.of(GROUP)));
    assertEquals(LOADING, consumerDescribe.groups().get(0).errorCode(), "ConsumerGroupDescribe");

    assertEquals(0, store.metadataWrites(), "no membership written for the group");
    assertTrue(coordinator.loading(GROUP));

    // Once the store reads it, the group is served with its offsets.
    store.readable(GROUP);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (coordinator.loadingAny() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertFalse(coordinator.loadingAny());
    ListGroupsResponse listed = call(new ListGroupsHandler(), 4, new ListGroupsRequest());
    assertEquals(Errors.NONE, listed.errorCode());
    assertEquals(GROUP, listed.groups().get(0).groupId());
    OffsetFetchResponse fetched = call(new OffsetFetchHandler(), 1, offsetFetchOfPartition0());
    assertEquals(Errors.NONE, fetched.topics().get(0).partitions().get(0).errorCode());
    assertEquals(42, fetched.topics().get(0).partitions().get(0).committedOffset());
  }
}
