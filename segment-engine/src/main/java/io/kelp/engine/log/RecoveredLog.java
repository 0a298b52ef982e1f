package io.kelp.engine.log;

import io.kelp.engine.producer.ProducerStateTable;
import io.kelp.engine.segment.Segment;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A log as recovery found it.
 *
 * @param segments every segment by base offset, the active one included
 * @param active the segment appends continue in, or null to start a new one at {@code nextOffset}
 * @param producers the producer state as of the end of the log
 * @param nextOffset the next offset to assign
 */
record RecoveredLog(
    ConcurrentSkipListMap<Long, Segment> segments,
    Segment active,
    ProducerStateTable producers,
    long nextOffset) {}
