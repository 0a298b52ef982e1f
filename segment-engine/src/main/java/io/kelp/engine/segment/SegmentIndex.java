package io.kelp.engine.segment;

import java.util.Arrays;

/**
 * The sparse indexes of one segment, offsets relative to its base offset:
 *
 * <ul>
 *   <li>offset index: (relative base offset of a batch, byte position of the batch), one entry
 *       roughly every index.interval.bytes; a lookup gives the position of the last indexed batch
 *       at or before an offset, where a scan for that offset starts.
 *   <li>time index: (largest timestamp of every batch <em>before</em> a batch, relative base offset
 *       of that batch), added only when the timestamp grows; a lookup for time T gives a batch
 *       before which no batch has a timestamp at or after T.
 * </ul>
 *
 * Appended to by one writer while readers look up; every method is synchronized.
 */
public final class SegmentIndex {
  private int[] offsets;
  private int[] positions;
  private int count;
  private long[] times;
  private int[] timeOffsets;
  private int timeCount;

  public SegmentIndex() {
    this(new int[0], new int[0], new long[0], new int[0]);
  }

  SegmentIndex(int[] offsets, int[] positions, long[] times, int[] timeOffsets) {
    this.offsets = offsets;
    this.positions = positions;
    this.count = offsets.length;
    this.times = times;
    this.timeOffsets = timeOffsets;
    this.timeCount = times.length;
  }

  public synchronized void addOffset(int relativeOffset, int position) {
    if (count > 0 && relativeOffset <= offsets[count - 1]) {
      return;
    }
    if (count == offsets.length) {
      int size = Math.max(16, count * 2);
      offsets = Arrays.copyOf(offsets, size);
      positions = Arrays.copyOf(positions, size);
    }
    offsets[count] = relativeOffset;
    positions[count] = position;
    count++;
  }

  /** Adds a time entry if {@code maxTimestampBefore} is larger than the last one. */
  public synchronized void addTime(long maxTimestampBefore, int relativeOffset) {
    if (timeCount > 0
        && (maxTimestampBefore <= times[timeCount - 1]
            || relativeOffset <= timeOffsets[timeCount - 1])) {
      return;
    }
    if (timeCount == times.length) {
      int size = Math.max(16, timeCount * 2);
      times = Arrays.copyOf(times, size);
      timeOffsets = Arrays.copyOf(timeOffsets, size);
    }
    times[timeCount] = maxTimestampBefore;
    timeOffsets[timeCount] = relativeOffset;
    timeCount++;
  }

  /** The position of the last indexed batch whose base is at or before {@code relativeOffset}. */
  public synchronized int positionFor(long relativeOffset) {
    int lo = 0;
    int hi = count - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (offsets[mid] <= relativeOffset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? 0 : positions[found];
  }

  /**
   * A relative offset before which no batch has a timestamp at or after {@code timestamp}: where a
   * scan for the first such batch can start.
   */
  public synchronized int offsetBefore(long timestamp) {
    int lo = 0;
    int hi = timeCount - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (times[mid] < timestamp) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? 0 : timeOffsets[found];
  }

  public synchronized int offsetEntries() {
    return count;
  }

  public synchronized int timeEntries() {
    return timeCount;
  }

  /** A copy of the entries, for the sidecar: {offsets, positions} and {times, timeOffsets}. */
  synchronized Snapshot snapshot() {
    return new Snapshot(
        Arrays.copyOf(offsets, count),
        Arrays.copyOf(positions, count),
        Arrays.copyOf(times, timeCount),
        Arrays.copyOf(timeOffsets, timeCount));
  }

  record Snapshot(int[] offsets, int[] positions, long[] times, int[] timeOffsets) {}
}
