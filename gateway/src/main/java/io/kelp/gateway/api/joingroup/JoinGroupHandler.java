package io.kelp.gateway.api.joingroup;

import io.kelp.codec.message.JoinGroupRequest;
import io.kelp.codec.message.JoinGroupRequest.JoinGroupRequestProtocol;
import io.kelp.codec.message.JoinGroupResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.GroupConfig;
import io.kelp.gateway.coordinator.GroupCoordinator;
import io.kelp.gateway.coordinator.classic.ClassicGroup;
import io.kelp.gateway.coordinator.classic.ClassicGroup.JoinRequest;
import io.kelp.gateway.coordinator.classic.ClassicGroups;
import io.kelp.gateway.coordinator.classic.ClassicMember;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * JoinGroup (key 11), versions 0-9: a member joins a classic group; the response waits until the
 * group's join phase ends (see {@link ClassicGroup}). v4+ dynamic members first get
 * MEMBER_ID_REQUIRED with their member id; v5+ static members (group.instance.id); v9 tells a
 * rejoining static leader to skip the assignment. v0 has no rebalance timeout: the session timeout
 * stands in for it, as in Kafka. A group id held by a non-empty KIP-848 group is
 * INCONSISTENT_GROUP_PROTOCOL (Kafka would let the classic member join the consumer group; Kelp
 * does not mix protocols in one group).
 */
public final class JoinGroupHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 11;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 9;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    JoinGroupRequest r = (JoinGroupRequest) request;
    short version = ctx.apiVersion();
    GroupCoordinator coordinator = ctx.broker().groups();
    GroupConfig config = coordinator.config();
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return done(error(Errors.INVALID_GROUP_ID, r.memberId(), version));
    }
    if (coordinator.loading(r.groupId())) {
      return done(error(Errors.COORDINATOR_LOAD_IN_PROGRESS, r.memberId(), version));
    }
    if (r.sessionTimeoutMs() < config.minSessionTimeoutMs()
        || r.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
      return done(error(Errors.INVALID_SESSION_TIMEOUT, r.memberId(), version));
    }
    List<ClassicMember.Protocol> protocols = new ArrayList<>(r.protocols().size());
    for (JoinGroupRequestProtocol p : r.protocols()) {
      protocols.add(new ClassicMember.Protocol(p.name(), p.metadata()));
    }
    JoinRequest join =
        new JoinRequest(
            r.memberId(),
            r.groupInstanceId(),
            r.protocolType(),
            protocols,
            r.sessionTimeoutMs(),
            version == 0 ? r.sessionTimeoutMs() : r.rebalanceTimeoutMs(),
            r.reason(),
            ctx.clientId() == null ? "" : ctx.clientId(),
            host(ctx.clientAddress()),
            version >= 4,
            version >= 9);
    return ctx.broker()
        .groupRequest(
            r.groupId(),
            "JoinGroup",
            () -> {
              ClassicGroup group =
                  ClassicGroups.getOrCreate(coordinator, r.groupId(), r.memberId().isEmpty());
              if (group == null) {
                boolean exists = coordinator.group(r.groupId()) != null;
                return CompletableFuture.completedFuture(
                    error(
                        exists ? Errors.INCONSISTENT_GROUP_PROTOCOL : Errors.UNKNOWN_MEMBER_ID,
                        r.memberId(),
                        version));
              }
              return group.join(join);
            },
            // Bounds the wait for the group, not the join's wait for the other members.
            () ->
                CompletableFuture.completedFuture(
                    error(Errors.COORDINATOR_NOT_AVAILABLE, r.memberId(), version)))
        .thenCompose(f -> f)
        .thenApply(response -> (ApiMessage) fit(response, version));
  }

  /** Kafka's own normalisation: before v7 the protocol name may not be null. */
  private static JoinGroupResponse fit(JoinGroupResponse r, short version) {
    if (version < 7 && r.protocolName() == null) {
      r.setProtocolName("");
    }
    if (r.leader() == null) {
      r.setLeader("");
    }
    return r;
  }

  private static JoinGroupResponse error(short code, String memberId, short version) {
    return fit(
        new JoinGroupResponse()
            .setErrorCode(code)
            .setMemberId(memberId == null ? "" : memberId)
            .setProtocolName(null),
        version);
  }

  private static CompletableFuture<ApiMessage> done(ApiMessage m) {
    return CompletableFuture.completedFuture(m);
  }

  /** The client's address as Kafka shows it in DescribeGroups: "/" and the IP. */
  static String host(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return "/" + inet.getAddress().getHostAddress();
    }
    return String.valueOf(address);
  }
}
