package io.kelp.gateway.api;

/** The Kafka error codes Kelp answers with, by their protocol names. */
public final class Errors {
  private Errors() {}

  public static final short UNKNOWN_SERVER_ERROR = -1;
  public static final short NONE = 0;
  public static final short OFFSET_OUT_OF_RANGE = 1;
  public static final short CORRUPT_MESSAGE = 2;
  public static final short UNKNOWN_TOPIC_OR_PARTITION = 3;
  public static final short LEADER_NOT_AVAILABLE = 5;
  public static final short NOT_LEADER_OR_FOLLOWER = 6;
  public static final short REQUEST_TIMED_OUT = 7;
  public static final short MESSAGE_TOO_LARGE = 10;
  public static final short OFFSET_METADATA_TOO_LARGE = 12;
  public static final short COORDINATOR_LOAD_IN_PROGRESS = 14;
  public static final short COORDINATOR_NOT_AVAILABLE = 15;
  public static final short NOT_COORDINATOR = 16;
  public static final short INVALID_TOPIC_EXCEPTION = 17;
  public static final short INVALID_REQUIRED_ACKS = 21;
  public static final short ILLEGAL_GENERATION = 22;
  public static final short INCONSISTENT_GROUP_PROTOCOL = 23;
  public static final short INVALID_GROUP_ID = 24;
  public static final short UNKNOWN_MEMBER_ID = 25;
  public static final short INVALID_SESSION_TIMEOUT = 26;
  public static final short REBALANCE_IN_PROGRESS = 27;
  public static final short INVALID_COMMIT_OFFSET_SIZE = 28;
  public static final short INVALID_TIMESTAMP = 32;
  public static final short UNSUPPORTED_VERSION = 35;
  public static final short TOPIC_ALREADY_EXISTS = 36;
  public static final short INVALID_PARTITIONS = 37;
  public static final short INVALID_REPLICATION_FACTOR = 38;
  public static final short INVALID_REPLICA_ASSIGNMENT = 39;
  public static final short INVALID_CONFIG = 40;
  public static final short INVALID_REQUEST = 42;
  public static final short OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
  public static final short INVALID_PRODUCER_EPOCH = 47;
  public static final short INVALID_TXN_STATE = 48;
  public static final short KAFKA_STORAGE_ERROR = 56;
  public static final short UNKNOWN_PRODUCER_ID = 59;
  public static final short NON_EMPTY_GROUP = 68;
  public static final short GROUP_ID_NOT_FOUND = 69;
  public static final short FETCH_SESSION_ID_NOT_FOUND = 70;
  public static final short FENCED_LEADER_EPOCH = 74;
  public static final short UNKNOWN_LEADER_EPOCH = 75;
  public static final short MEMBER_ID_REQUIRED = 79;
  public static final short GROUP_MAX_SIZE_REACHED = 81;
  public static final short FENCED_INSTANCE_ID = 82;
  public static final short GROUP_SUBSCRIBED_TO_TOPIC = 86;
  public static final short INVALID_RECORD = 87;
  public static final short UNKNOWN_TOPIC_ID = 100;
  public static final short FENCED_MEMBER_EPOCH = 110;
  public static final short UNRELEASED_INSTANCE_ID = 111;
  public static final short UNSUPPORTED_ASSIGNOR = 112;
  public static final short STALE_MEMBER_EPOCH = 113;
  public static final short UNSUPPORTED_ENDPOINT_TYPE = 119;
  public static final short INVALID_REGULAR_EXPRESSION = 128;

  /**
   * The answer to a request's current leader epoch (Fetch v9+, ListOffsets v4+,
   * OffsetForLeaderEpoch): NONE when the client did not say (-1) or agrees with the log, else
   * FENCED_LEADER_EPOCH when the client is behind and UNKNOWN_LEADER_EPOCH when it is ahead.
   */
  public static short checkLeaderEpoch(int requestEpoch, int logEpoch) {
    if (requestEpoch < 0 || requestEpoch == logEpoch) {
      return NONE;
    }
    return requestEpoch < logEpoch ? FENCED_LEADER_EPOCH : UNKNOWN_LEADER_EPOCH;
  }
}
