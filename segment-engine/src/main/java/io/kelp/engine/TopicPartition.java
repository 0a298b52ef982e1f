package io.kelp.engine;

/** A Kafka partition: topic name and partition index. */
public record TopicPartition(String topic, int partition) {
  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}
