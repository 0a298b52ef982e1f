package io.kelp.gateway.coordinator.classic;

import io.kelp.codec.message.JoinGroupResponse;
import io.kelp.codec.message.SyncGroupResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a classic group: who it is, the protocols it offered in its last JoinGroup, its
 * assignment, and the JoinGroup or SyncGroup response it is waiting for. Guarded by the group's
 * monitor.
 */
public final class ClassicMember {
  /** A protocol a member offers: its name and the member's metadata for it (the subscription). */
  public record Protocol(String name, byte[] metadata) {
    boolean sameAs(Protocol other) {
      return name.equals(other.name) && Arrays.equals(metadata, other.metadata);
    }
  }

  static final byte[] EMPTY = new byte[0];

  private String memberId;
  private final String groupInstanceId;
  private String clientId;
  private String clientHost;
  private int rebalanceTimeoutMs;
  private int sessionTimeoutMs;
  private final String protocolType;
  private List<Protocol> protocols;
  private byte[] assignment = EMPTY;
  private CompletableFuture<JoinGroupResponse> joinFuture;
  private CompletableFuture<SyncGroupResponse> syncFuture;
  private long heartbeatDeadlineMs;
  private boolean isNew;

  ClassicMember(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      int rebalanceTimeoutMs,
      int sessionTimeoutMs,
      String protocolType,
      List<Protocol> protocols) {
    this.memberId = memberId;
    this.groupInstanceId = groupInstanceId;
    this.clientId = clientId;
    this.clientHost = clientHost;
    this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.protocolType = protocolType;
    this.protocols = List.copyOf(protocols);
  }

  String memberId() {
    return memberId;
  }

  void memberId(String id) {
    this.memberId = id;
  }

  String groupInstanceId() {
    return groupInstanceId;
  }

  boolean isStatic() {
    return groupInstanceId != null;
  }

  String clientId() {
    return clientId;
  }

  String clientHost() {
    return clientHost;
  }

  void client(String clientId, String clientHost) {
    this.clientId = clientId;
    this.clientHost = clientHost;
  }

  int rebalanceTimeoutMs() {
    return rebalanceTimeoutMs;
  }

  int sessionTimeoutMs() {
    return sessionTimeoutMs;
  }

  String protocolType() {
    return protocolType;
  }

  List<Protocol> protocols() {
    return protocols;
  }

  void update(List<Protocol> protocols, int rebalanceTimeoutMs, int sessionTimeoutMs) {
    this.protocols = List.copyOf(protocols);
    this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /**
   * True when {@code offered} are the same protocols, in the same order, with the same metadata.
   */
  boolean matches(List<Protocol> offered) {
    if (offered.size() != protocols.size()) {
      return false;
    }
    for (int i = 0; i < offered.size(); i++) {
      if (!offered.get(i).sameAs(protocols.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** The member's metadata for {@code protocol}, or null when it does not offer it. */
  byte[] metadata(String protocol) {
    for (Protocol p : protocols) {
      if (p.name().equals(protocol)) {
        return p.metadata();
      }
    }
    return null;
  }

  /** The member's first choice among {@code candidates}: its vote for the group's protocol. */
  String vote(Set<String> candidates) {
    for (Protocol p : protocols) {
      if (candidates.contains(p.name())) {
        return p.name();
      }
    }
    return null;
  }

  byte[] assignment() {
    return assignment;
  }

  void assignment(byte[] assignment) {
    this.assignment = assignment == null ? EMPTY : assignment;
  }

  boolean awaitingJoin() {
    return joinFuture != null;
  }

  boolean awaitingSync() {
    return syncFuture != null;
  }

  void awaitJoin(CompletableFuture<JoinGroupResponse> future) {
    this.joinFuture = future;
  }

  void awaitSync(CompletableFuture<SyncGroupResponse> future) {
    this.syncFuture = future;
  }

  /** Answers the JoinGroup this member waits on; true if it was waiting. */
  boolean completeJoin(JoinGroupResponse response) {
    CompletableFuture<JoinGroupResponse> f = joinFuture;
    joinFuture = null;
    return f != null && f.complete(response);
  }

  /** Answers the SyncGroup this member waits on; true if it was waiting. */
  boolean completeSync(SyncGroupResponse response) {
    CompletableFuture<SyncGroupResponse> f = syncFuture;
    syncFuture = null;
    return f != null && f.complete(response);
  }

  long heartbeatDeadlineMs() {
    return heartbeatDeadlineMs;
  }

  void heartbeatDeadlineMs(long deadline) {
    this.heartbeatDeadlineMs = deadline;
  }

  boolean isNew() {
    return isNew;
  }

  void isNew(boolean value) {
    this.isNew = value;
  }
}
