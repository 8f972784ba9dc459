package io.demandfold.core;

/**
 * A watermark {@code (value, epoch)}, ordered by value first, epoch second (docs/model.md section
 * 3).
 *
 * @param value a generation number
 * @param epoch the writer epoch it was reported under
 */
public record Mark(long value, long epoch) implements Comparable<Mark> {
  @Override
  public int compareTo(Mark o) {
    int c = Long.compare(value, o.value);
    return c != 0 ? c : Long.compare(epoch, o.epoch);
  }
}
