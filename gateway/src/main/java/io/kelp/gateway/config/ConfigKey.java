package io.kelp.gateway.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One Kafka topic config Kelp understands.
 *
 * @param name the Kafka name, e.g. {@code retention.ms}
 * @param type how the value is parsed
 * @param defaultValue Kafka's default, as text
 * @param min smallest allowed number (numeric types), or null
 * @param max largest allowed number (numeric types), or null
 * @param validValues allowed values (STRING), or allowed list items (LIST); empty for any
 * @param documentation one line on what it does, shown by DescribeConfigs v3+
 * @param actedOn whether Kelp changes its behaviour for it; others are stored and echoed only
 * @param brokerSynonym the broker-wide setting Kafka derives the default from, or null
 */
public record ConfigKey(
    String name,
    ConfigType type,
    String defaultValue,
    Double min,
    Double max,
    List<String> validValues,
    String documentation,
    boolean actedOn,
    String brokerSynonym) {

  /**
   * Checks and normalises a value: numbers must parse and lie in range, strings and list items must
   * be among the valid values.
   */
  public String validate(String value) throws InvalidConfigException {
    if (value == null) {
      throw new InvalidConfigException("Null value not supported for topic config " + name);
    }
    String v = value.trim();
    switch (type) {
      case BOOLEAN -> {
        String lower = v.toLowerCase(Locale.ROOT);
        if (!lower.equals("true") && !lower.equals("false")) {
          throw invalid(value, "Expected value to be either true or false");
        }
        return lower;
      }
      case INT, SHORT, LONG -> {
        long n;
        try {
          n = Long.parseLong(v);
        } catch (NumberFormatException e) {
          throw invalid(value, "Not a number of type " + type);
        }
        if (type == ConfigType.INT && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE)) {
          throw invalid(value, "Not a number of type INT");
        }
        checkRange(value, n);
        return Long.toString(n);
      }
      case DOUBLE -> {
        double d;
        try {
          d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
          throw invalid(value, "Not a number of type DOUBLE");
        }
        if (Double.isNaN(d)) {
          throw invalid(value, "Not a number of type DOUBLE");
        }
        checkRange(value, d);
        return v;
      }
      case LIST -> {
        List<String> items = splitList(v);
        for (String item : items) {
          if (!validValues.isEmpty() && !validValues.contains(item)) {
            throw invalid(value, "String must be one of: " + String.join(", ", validValues));
          }
        }
        return String.join(",", items);
      }
      default -> {
        if (!validValues.isEmpty() && !validValues.contains(v)) {
          throw invalid(value, "String must be one of: " + String.join(", ", validValues));
        }
        return v;
      }
    }
  }

  private void checkRange(String value, double n) throws InvalidConfigException {
    if (min != null && n < min) {
      throw invalid(value, "Value must be at least " + format(min));
    }
    if (max != null && n > max) {
      throw invalid(value, "Value must be no more than " + format(max));
    }
  }

  private static String format(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e18 ? Long.toString((long) d) : Double.toString(d);
  }

  private InvalidConfigException invalid(String value, String why) {
    return new InvalidConfigException(
        "Invalid value " + value + " for configuration " + name + ": " + why);
  }

  /** Kafka's list syntax: comma-separated, items trimmed, empty items dropped. */
  public static List<String> splitList(String value) {
    List<String> out = new ArrayList<>();
    for (String item : value.split(",")) {
      String t = item.trim();
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    return out;
  }
}
