package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupRequest;

/**
 * One request of each group API for a group whose requests wait behind a write to a store that does
 * not answer, pipelined on one connection and read with Kafka's own client codec: each must come
 * back, once the broker's bound on the wait (offsets.commit.timeout.ms) has passed, as the API's
 * retriable COORDINATOR_NOT_AVAILABLE, parsed without fault by Kafka's client.
 */
final class StuckGroupRequests {
  private StuckGroupRequests() {}

  private record Sent(ApiKeys api, short version, AbstractRequest request) {}

  /**
   * Sends the requests for {@code groupId} (a member "m" of generation 1, partition 0 of {@code
   * topic}) and checks every answer; returns how long the last answer took, in milliseconds.
   */
  static long assertAnsweredRetriably(String host, int port, String groupId, String topic)
      throws IOException {
    List<Sent> requests = new ArrayList<>();
    requests.add(
        sent(
            new HeartbeatRequest.Builder(
                new HeartbeatRequestData().setGroupId(groupId).setGenerationId(1).setMemberId("m")),
            4));
    JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
    protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
    requests.add(
        sent(
            new JoinGroupRequest.Builder(
                new JoinGroupRequestData()
                    .setGroupId(groupId)
                    .setMemberId("m")
                    .setProtocolType("consumer")
                    .setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(10_000)
                    .setProtocols(protocols)),
            9));
    requests.add(
        sent(
            new SyncGroupRequest.Builder(
                new SyncGroupRequestData()
                    .setGroupId(groupId)
                    .setGenerationId(1)
                    .setMemberId("m")
                    .setProtocolType("consumer")
                    .setProtocolName("range")),
            5));
    requests.add(
        sent(
            new LeaveGroupRequest.Builder(groupId, List.of(new MemberIdentity().setMemberId("m"))),
            5));
    requests.add(
        sent(
            OffsetCommitRequest.Builder.forTopicNames(
                new OffsetCommitRequestData()
                    .setGroupId(groupId)
                    .setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("")
                    .setTopics(
                        List.of(
                            new OffsetCommitRequestTopic()
                                .setName(topic)
                                .setPartitions(
                                    List.of(
                                        new OffsetCommitRequestPartition()
                                            .setPartitionIndex(0)
                                            .setCommittedOffset(1)))))),
            8));
    OffsetDeleteRequestTopicCollection deleted = new OffsetDeleteRequestTopicCollection();
    deleted.add(
        new OffsetDeleteRequestTopic()
            .setName(topic)
            .setPartitions(List.of(new OffsetDeleteRequestPartition().setPartitionIndex(0))));
    requests.add(
        sent(
            new OffsetDeleteRequest.Builder(
                new OffsetDeleteRequestData().setGroupId(groupId).setTopics(deleted)),
            0));
    requests.add(
        sent(
            new DescribeGroupsRequest.Builder(
                new DescribeGroupsRequestData().setGroups(List.of(groupId))),
            5));
    requests.add(
        sent(
            new ConsumerGroupHeartbeatRequest.Builder(
                new ConsumerGroupHeartbeatRequestData()
                    .setGroupId(groupId)
                    .setMemberId("m")
                    .setMemberEpoch(0)
                    .setRebalanceTimeoutMs(10_000)
                    .setSubscribedTopicNames(List.of(topic))
                    .setTopicPartitions(List.of())),
            0));

    long start = System.nanoTime();
    try (RawConnection raw = RawConnection.open(host, port)) {
      List<RequestHeader> headers = new ArrayList<>();
      for (int i = 0; i < requests.size(); i++) {
        Sent s = requests.get(i);
        RequestHeader header = new RequestHeader(s.api(), s.version(), "stuck-group", 500 + i);
        headers.add(header);
        raw.writeFrame(s.request().serializeWithHeader(header));
      }
      for (int i = 0; i < requests.size(); i++) {
        ApiKeys api = requests.get(i).api();
        ByteBuffer frame =
            raw.awaitFrameOrClose(Duration.ofSeconds(30))
                .orElseThrow(() -> new AssertionError(api + " closed the connection"));
        AbstractResponse response = AbstractResponse.parseResponse(frame, headers.get(i));
        Map<Errors, Integer> errors = response.errorCounts();
        Set<Errors> kinds = new HashSet<>(errors.keySet());
        kinds.remove(Errors.NONE);
        assertEquals(
            Set.of(Errors.COORDINATOR_NOT_AVAILABLE), kinds, api + " while its group waits");
      }
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(ms >= 4_000 && ms < 10_000, "answered after " + ms + " ms");
    return ms;
  }

  private static Sent sent(AbstractRequest.Builder<?> builder, int version) {
    return new Sent(builder.apiKey(), (short) version, builder.build((short) version));
  }
}
