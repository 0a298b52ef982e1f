package io.kelp.gateway.api;

/** Config resource types as DescribeConfigs and the AlterConfigs APIs name them. */
public final class ConfigResources {
  private ConfigResources() {}

  public static final byte TOPIC = 2;
  public static final byte BROKER = 4;

  /**
   * Why a broker resource name does not name this broker, or null when it does (its id) or names
   * the cluster-wide defaults (the empty string).
   */
  public static String brokerNameProblem(String name, int brokerId) {
    if (name == null || name.isEmpty() || name.equals(Integer.toString(brokerId))) {
      return null;
    }
    return "Unexpected broker id, expected " + brokerId + " or empty string, but received " + name;
  }
}
