package io.demandfold.core;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An immutable map from generation to flush time (epoch ms), in ascending generation order. Backed
 * by two primitive arrays: the join merges these without boxing.
 */
public final class SealedTimes {
  static final SealedTimes EMPTY = new SealedTimes(new long[0], new long[0], 0);

  private final long[] generations;
  private final long[] times;
  private final int size;

  /** Takes ownership of the arrays; generations must be strictly ascending. */
  SealedTimes(long[] generations, long[] times, int size) {
    this.generations = generations;
    this.times = times;
    this.size = size;
  }

  /** The empty map. */
  public static SealedTimes empty() {
    return EMPTY;
  }

  /**
   * A map with the given entries.
   *
   * @throws InvalidEventException when a generation is negative or there are more than {@link
   *     Limits#MAX_EVENT_SEALED_TIMES} entries
   */
  public static SealedTimes of(Map<Long, Long> entries) {
    Builder b = new Builder();
    for (Map.Entry<Long, Long> e : new TreeMap<>(entries).entrySet()) {
      b.put(e.getKey(), e.getValue());
    }
    return b.build();
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** The i-th smallest generation. */
  public long generation(int i) {
    return generations[i];
  }

  /** The flush time of the i-th smallest generation. */
  public long time(int i) {
    return times[i];
  }

  /** The index of generation {@code g}, or a negative number when absent. */
  public int indexOf(long g) {
    return Arrays.binarySearch(generations, 0, size, g);
  }

  /** The index of the smallest generation {@code >= g}, or {@link #size()} when none. */
  public int ceilingIndex(long g) {
    int i = Arrays.binarySearch(generations, 0, size, g);
    return i >= 0 ? i : -i - 1;
  }

  /** A sorted copy as a map. */
  public SortedMap<Long, Long> asMap() {
    TreeMap<Long, Long> m = new TreeMap<>();
    for (int i = 0; i < size; i++) {
      m.put(generations[i], times[i]);
    }
    return Collections.unmodifiableSortedMap(m);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SealedTimes)) {
      return false;
    }
    SealedTimes s = (SealedTimes) o;
    return size == s.size
        && Arrays.equals(generations, 0, size, s.generations, 0, size)
        && Arrays.equals(times, 0, size, s.times, 0, size);
  }

  /** Equality with the {@code n} entries held in the given arrays from index {@code from}. */
  boolean sameAs(long[] gens, long[] ts, int from, int n) {
    return size == n
        && Arrays.equals(generations, 0, size, gens, from, from + n)
        && Arrays.equals(times, 0, size, ts, from, from + n);
  }

  /** The backing array of generations (its first {@link #size()} entries); never modify it. */
  long[] generationsArray() {
    return generations;
  }

  /** The backing array of times (its first {@link #size()} entries); never modify it. */
  long[] timesArray() {
    return times;
  }

  @Override
  public int hashCode() {
    int h = 1;
    for (int i = 0; i < size; i++) {
      h = 31 * h + Long.hashCode(generations[i]);
      h = 31 * h + Long.hashCode(times[i]);
    }
    return h;
  }

  @Override
  public String toString() {
    return asMap().toString();
  }

  /**
   * Collects entries in any order; rejects duplicates, negative generations and more than {@link
   * Limits#MAX_EVENT_SEALED_TIMES} entries with an {@link InvalidEventException} naming the entry.
   */
  public static final class Builder {
    private long[] gens = new long[8];
    private long[] ts = new long[8];
    private int n;
    private boolean sorted = true;

    /** Adds one entry. */
    public Builder put(long generation, long timeMs) {
      if (generation < 0) {
        throw InvalidEventException.field(
            "sealed_times: generation " + generation + " is negative");
      }
      if (n == Limits.MAX_EVENT_SEALED_TIMES) {
        throw InvalidEventException.field(
            "sealed_times has more than " + Limits.MAX_EVENT_SEALED_TIMES + " entries");
      }
      if (n == gens.length) {
        gens = Arrays.copyOf(gens, n * 2);
        ts = Arrays.copyOf(ts, n * 2);
      }
      if (n > 0 && generation <= gens[n - 1]) {
        sorted = false;
      }
      gens[n] = generation;
      ts[n] = timeMs;
      n++;
      return this;
    }

    public SealedTimes build() {
      if (n == 0) {
        return EMPTY;
      }
      if (!sorted) {
        sortByGeneration();
      }
      for (int i = 1; i < n; i++) {
        if (gens[i] == gens[i - 1]) {
          throw InvalidEventException.field(
              "sealed_times: generation " + gens[i] + " appears more than once");
        }
      }
      return new SealedTimes(Arrays.copyOf(gens, n), Arrays.copyOf(ts, n), n);
    }

    private void sortByGeneration() {
      Integer[] idx = new Integer[n];
      for (int i = 0; i < n; i++) {
        idx[i] = i;
      }
      Arrays.sort(idx, (a, b) -> Long.compare(gens[a], gens[b]));
      long[] g2 = new long[n];
      long[] t2 = new long[n];
      for (int i = 0; i < n; i++) {
        g2[i] = gens[idx[i]];
        t2[i] = ts[idx[i]];
      }
      gens = g2;
      ts = t2;
    }
  }
}
