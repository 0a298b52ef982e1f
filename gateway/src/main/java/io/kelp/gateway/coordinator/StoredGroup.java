package io.kelp.gateway.coordinator;

import io.kelp.engine.TopicPartition;
import java.util.Map;

/**
 * A group as the store holds it: the membership state its coordinator last wrote (null when only
 * offsets were ever written, as by consumers that commit without joining) and its committed
 * offsets.
 */
public record StoredGroup(
    String groupId, byte[] metadata, Map<TopicPartition, OffsetAndMetadata> offsets) {}
