package io.kelp.gateway.topic;

/** Kafka's rules for topic names. */
public final class TopicNames {
  private TopicNames() {}

  public static final int MAX_LENGTH = 249;

  /** Why {@code name} is not a legal topic name, or null if it is. */
  public static String problem(String name) {
    if (name == null || name.isEmpty()) {
      return "Topic name is illegal, it can't be empty";
    }
    if (name.equals(".") || name.equals("..")) {
      return "Topic name cannot be \".\" or \"..\"";
    }
    if (name.length() > MAX_LENGTH) {
      return "Topic name is illegal, it can't be longer than "
          + MAX_LENGTH
          + " characters, topic name: "
          + name;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      if (!ok) {
        return "Topic name \""
            + name
            + "\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_'"
            + " and '-'";
      }
    }
    return null;
  }

  /** Whether Kafka reports the topic as internal: its group and transaction state topics. */
  public static boolean isInternal(String name) {
    return name.equals("__consumer_offsets") || name.equals("__transaction_state");
  }

  public static boolean isValid(String name) {
    return problem(name) == null;
  }

  /**
   * The name with '.' replaced by '_': two topics whose names differ only there collide, because
   * Kafka's metric names cannot tell them apart.
   */
  public static String collisionKey(String name) {
    return name.replace('.', '_');
  }
}
