package io.kelp.gateway.api;

/**
 * Authorized-operation bit sets as Metadata, DescribeCluster and DescribeTopicPartitions report
 * them: bit n is set when Kafka's AclOperation with code n is allowed. Kelp has no authorizer, so
 * everything a resource type supports is allowed, which is what Kafka reports without one.
 */
public final class AclOperations {
  private AclOperations() {}

  private static final int READ = 3;
  private static final int WRITE = 4;
  private static final int CREATE = 5;
  private static final int DELETE = 6;
  private static final int ALTER = 7;
  private static final int DESCRIBE = 8;
  private static final int CLUSTER_ACTION = 9;
  private static final int DESCRIBE_CONFIGS = 10;
  private static final int ALTER_CONFIGS = 11;
  private static final int IDEMPOTENT_WRITE = 12;

  /** What "not requested" looks like on the wire. */
  public static final int NOT_REQUESTED = Integer.MIN_VALUE;

  public static final int TOPIC =
      bits(READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS);

  /** What every caller may do to a group, as Kafka reports it without an authorizer. */
  public static final int GROUP = bits(READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS);

  public static final int CLUSTER =
      bits(
          CREATE,
          CLUSTER_ACTION,
          DESCRIBE_CONFIGS,
          ALTER_CONFIGS,
          IDEMPOTENT_WRITE,
          ALTER,
          DESCRIBE);

  private static int bits(int... ops) {
    int v = 0;
    for (int op : ops) {
      v |= 1 << op;
    }
    return v;
  }
}
