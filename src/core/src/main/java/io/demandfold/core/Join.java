package io.demandfold.core;

/**
 * The join of a stored per-shard record and an event (docs/model.md section 4): each dimension is
 * joined independently, so the result is a function of the set of events folded, whatever their
 * order or duplication.
 *
 * <pre>{@code
 * ShardRecord stored = null;
 * for (ShardRecord event : events) {
 *   ShardRecord next = Join.join(stored, event);
 *   if (next == stored) continue; // a no-op: nothing to write
 *   stored = next;
 * }
 * }</pre>
 *
 * <p>Why one class of this size: the join is the heart of the model, kept in one place with its
 * fast paths, each argued next to the code it shortens; JoinOracleTest holds it to a plain
 * implementation of docs/model.md section 4 over random streams.
 */
public final class Join {
  /** Largest intermediate sealed_times: two full events plus each side's own flush time. */
  private static final int SCRATCH = 2 * Limits.MAX_EVENT_SEALED_TIMES + 2;

  private static final ThreadLocal<Scratch> SCRATCHES = ThreadLocal.withInitial(Scratch::new);

  /** No own flush time to note. */
  private static final long NONE = -1;

  private Join() {}

  /**
   * Joins {@code event} into {@code stored}.
   *
   * @param stored the stored record, or {@code null} when nothing is stored (the result is then the
   *     event normalised: own flush time noted, sealed_times pruned, merged_epoch dropped when
   *     equal to writer_epoch)
   * @param event an event of the same shard
   * @return the joined record; {@code stored} itself (the same instance) when the join changes
   *     nothing, which is a no-op that must write nothing
   * @throws IllegalArgumentException when the shards differ
   */
  public static ShardRecord join(ShardRecord stored, ShardRecord event) {
    if (stored == null) {
      return normalize(event);
    }
    if (!stored.shard().equals(event.shard())) {
      throw new IllegalArgumentException(
          "cannot join shard " + event.shard() + " into shard " + stored.shard());
    }
    ShardRecord w = sealedWinner(stored, event);
    long bytes = Math.max(stored.sealedBytesThrough(), event.sealedBytesThrough());

    long mergedValue;
    long mergedEpoch;
    if (mergedWins(event, stored)) {
      mergedValue = event.mergedThroughOrAbsent();
      mergedEpoch = event.effectiveMergedEpoch();
    } else {
      mergedValue = stored.mergedThroughOrAbsent();
      mergedEpoch = stored.hasMergedThrough() ? stored.effectiveMergedEpoch() : ShardRecord.ABSENT;
    }
    long mergedEpochOut =
        mergedValue == ShardRecord.ABSENT || mergedEpoch == w.writerEpoch()
            ? ShardRecord.ABSENT
            : mergedEpoch;

    SealedTimes times = knownUnion(stored, event, mergedValue);
    if (times == null) {
      times =
          unionPruned(
              stored.sealedTimes(),
              ownGeneration(stored),
              stored.flushedAtMs(),
              event.sealedTimes(),
              ownGeneration(event),
              event.flushedAtMs(),
              mergedValue,
              stored.sealedTimes());
    }

    if (w == stored
        && bytes == stored.sealedBytesThrough()
        && mergedValue == stored.mergedThroughOrAbsent()
        && mergedEpochOut == stored.mergedEpochOrAbsent()
        && times == stored.sealedTimes()) {
      return stored;
    }
    return new ShardRecord(
        w.shard(),
        w.sealedThrough(),
        bytes,
        mergedValue,
        mergedEpochOut,
        w.flushedAtMs(),
        w.writerEpoch(),
        w.source(),
        times);
  }

  /** The event as a fresh stored record; the event itself when it is already normal. */
  static ShardRecord normalize(ShardRecord e) {
    SealedTimes times =
        unionPruned(
            SealedTimes.EMPTY,
            NONE,
            0,
            e.sealedTimes(),
            ownGeneration(e),
            e.flushedAtMs(),
            e.mergedThroughOrAbsent(),
            e.sealedTimes());
    long mergedEpoch =
        e.mergedEpochOrAbsent() == e.writerEpoch() ? ShardRecord.ABSENT : e.mergedEpochOrAbsent();
    if (times == e.sealedTimes() && mergedEpoch == e.mergedEpochOrAbsent()) {
      return e;
    }
    return new ShardRecord(
        e.shard(),
        e.sealedThrough(),
        e.sealedBytesThrough(),
        e.mergedThroughOrAbsent(),
        mergedEpoch,
        e.flushedAtMs(),
        e.writerEpoch(),
        e.source(),
        times);
  }

  /**
   * The record whose sealed mark is larger; on equal marks the smaller flushed_at_ms, then the
   * source order writer &lt; scan &lt; executor; {@code a} when all of these are equal.
   */
  private static ShardRecord sealedWinner(ShardRecord a, ShardRecord b) {
    int c = Long.compare(a.sealedThrough(), b.sealedThrough());
    if (c == 0) {
      c = Long.compare(a.writerEpoch(), b.writerEpoch());
    }
    if (c == 0) {
      c = Long.compare(b.flushedAtMs(), a.flushedAtMs());
    }
    if (c == 0) {
      c = Integer.compare(b.source().tieRank(), a.source().tieRank());
    }
    return c >= 0 ? a : b;
  }

  /** The larger of two marks, {@code null} being smallest; {@code a} on a tie. */
  static Mark max(Mark a, Mark b) {
    if (b == null) {
      return a;
    }
    if (a == null) {
      return b;
    }
    return a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * The pruned union without the general merge, in the two cases the stream mostly takes, both
   * while every stored generation lies above the joined {@code merged} (else the cut of section 5
   * drops some: the general union does it): the stored map already holds everything the join adds
   * (a duplicate, a scan, an executor that merged nothing stored), or the stored map is full and
   * everything the join adds lies below its lowest generation (pruned away: 64 stored generations
   * lie above it), is held with an earlier or equal time, or lies above its highest generation (a
   * writer's next flush: the map shifts by the generations added, all of them above merged).
   * Returns the stored map itself when nothing changes, {@code null} when neither case applies.
   */
  private static SealedTimes knownUnion(ShardRecord stored, ShardRecord event, long merged) {
    SealedTimes st = stored.sealedTimes();
    int cap = Limits.SEALED_TIMES_CAP;
    if (st.size() > 0 && st.generation(0) <= merged) {
      return null;
    }
    if (st.size() < cap) {
      return covers(st, SealedTimes.EMPTY, ownGeneration(stored), stored.flushedAtMs())
              && covers(st, event.sealedTimes(), ownGeneration(event), event.flushedAtMs())
          ? st
          : null;
    }
    if (st.size() > cap) {
      return null;
    }
    Scratch s = SCRATCHES.get();
    long[] gens = s.gens;
    long[] times = s.times;
    SealedTimes et = event.sealedTimes();
    int above = 0;
    for (int i = 0; i < et.size(); i++) {
      int c = classify(st, et.generation(i), et.time(i));
      if (c == INSIDE) {
        return null;
      }
      if (c == ABOVE) {
        gens[above] = et.generation(i);
        times[above++] = et.time(i);
      }
    }
    long[] own = {ownGeneration(stored), ownGeneration(event)};
    long[] ownTime = {stored.flushedAtMs(), event.flushedAtMs()};
    for (int k = 0; k < 2; k++) {
      if (own[k] == NONE) {
        continue;
      }
      int c = classify(st, own[k], ownTime[k]);
      if (c == INSIDE) {
        return null;
      }
      if (c == ABOVE) {
        above = upsertEarliest(gens, times, above, own[k], ownTime[k]);
      }
    }
    if (above == 0) {
      return st;
    }
    long[] g = new long[cap];
    long[] t = new long[cap];
    int kept = Math.max(0, cap - above);
    System.arraycopy(st.generationsArray(), cap - kept, g, 0, kept);
    System.arraycopy(st.timesArray(), cap - kept, t, 0, kept);
    System.arraycopy(gens, above - (cap - kept), g, kept, cap - kept);
    System.arraycopy(times, above - (cap - kept), t, kept, cap - kept);
    return new SealedTimes(g, t, cap);
  }

  /** A flush time below a full stored map: pruned by the union. */
  private static final int BELOW = 0;

  /** A flush time the stored map holds with an earlier or equal time. */
  private static final int HELD = 1;

  /** A flush time above the stored map's highest generation. */
  private static final int ABOVE = 2;

  /** Any other flush time: the general union must place it. */
  private static final int INSIDE = 3;

  private static int classify(SealedTimes full, long g, long t) {
    if (g < full.generation(0)) {
      return BELOW;
    }
    if (g > full.generation(full.size() - 1)) {
      return ABOVE;
    }
    int i = full.indexOf(g);
    return i >= 0 && full.time(i) <= t ? HELD : INSIDE;
  }

  /**
   * Whether {@code stored} already holds every entry of {@code times} and {@code own -> ownTime}
   * with an earlier or equal time. When that holds for the stored record's own flush time and for
   * the event's, their union (and its pruning) is {@code stored} itself.
   */
  private static boolean covers(SealedTimes stored, SealedTimes times, long own, long ownTime) {
    if (own != NONE) {
      int i = stored.indexOf(own);
      if (i < 0 || stored.time(i) > ownTime) {
        return false;
      }
    }
    int j = 0;
    for (int i = 0; i < times.size(); i++) {
      long g = times.generation(i);
      while (j < stored.size() && stored.generation(j) < g) {
        j++;
      }
      if (j == stored.size() || stored.generation(j) != g || stored.time(j) > times.time(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code a}'s merged mark is strictly larger than {@code b}'s (absent is smallest). */
  private static boolean mergedWins(ShardRecord a, ShardRecord b) {
    if (!a.hasMergedThrough()) {
      return false;
    }
    if (!b.hasMergedThrough()) {
      return true;
    }
    int c = Long.compare(a.mergedThroughOrAbsent(), b.mergedThroughOrAbsent());
    return c != 0 ? c > 0 : a.effectiveMergedEpoch() > b.effectiveMergedEpoch();
  }

  /**
   * The union of both sides' sealed_times and each side's own flush time ({@code ownA -> timeA},
   * {@code ownB -> timeB}, each skipped when {@link #NONE}), earliest time per generation, pruned
   * to the 64 highest generations above {@code merged}, the joined merged mark's value
   * (docs/model.md section 5; {@link ShardRecord#ABSENT} keeps every generation). Returns {@code
   * reuse} itself when the result equals it.
   */
  private static SealedTimes unionPruned(
      SealedTimes ta,
      long ownA,
      long timeA,
      SealedTimes tb,
      long ownB,
      long timeB,
      long merged,
      SealedTimes reuse) {
    Scratch s = SCRATCHES.get();
    int n = 0;
    int i = 0;
    int j = 0;
    int na = ta.size();
    int nb = tb.size();
    long[] gens = s.gens;
    long[] times = s.times;
    while (i < na && j < nb) {
      long ga = ta.generation(i);
      long gb = tb.generation(j);
      if (ga < gb) {
        gens[n] = ga;
        times[n++] = ta.time(i++);
      } else if (gb < ga) {
        gens[n] = gb;
        times[n++] = tb.time(j++);
      } else {
        gens[n] = ga;
        times[n++] = Math.min(ta.time(i++), tb.time(j++));
      }
    }
    while (i < na) {
      gens[n] = ta.generation(i);
      times[n++] = ta.time(i++);
    }
    while (j < nb) {
      gens[n] = tb.generation(j);
      times[n++] = tb.time(j++);
    }
    if (ownA != NONE) {
      n = upsertEarliest(gens, times, n, ownA, timeA);
    }
    if (ownB != NONE) {
      n = upsertEarliest(gens, times, n, ownB, timeB);
    }
    int from = Math.max(0, n - Limits.SEALED_TIMES_CAP);
    while (from < n && gens[from] <= merged) {
      from++;
    }
    n -= from;
    if (reuse.sameAs(gens, times, from, n)) {
      return reuse;
    }
    if (n == 0) {
      return SealedTimes.EMPTY;
    }
    long[] g = new long[n];
    long[] t = new long[n];
    System.arraycopy(gens, from, g, 0, n);
    System.arraycopy(times, from, t, 0, n);
    return new SealedTimes(g, t, n);
  }

  /**
   * The generation whose flush time a record notes itself: its sealed_through, unless it comes from
   * an executor (executors never seed the age clock) or is 0; else {@link #NONE}.
   */
  private static long ownGeneration(ShardRecord r) {
    return r.source() != Source.EXECUTOR && r.sealedThrough() > 0 ? r.sealedThrough() : NONE;
  }

  /** Puts {@code (g, t)} into the sorted arrays keeping the earliest time; returns the size. */
  private static int upsertEarliest(long[] gens, long[] times, int n, long g, long t) {
    int lo = 0;
    int hi = n - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long gm = gens[mid];
      if (gm < g) {
        lo = mid + 1;
      } else if (gm > g) {
        hi = mid - 1;
      } else {
        if (t < times[mid]) {
          times[mid] = t;
        }
        return n;
      }
    }
    System.arraycopy(gens, lo, gens, lo + 1, n - lo);
    System.arraycopy(times, lo, times, lo + 1, n - lo);
    gens[lo] = g;
    times[lo] = t;
    return n + 1;
  }

  private static final class Scratch {
    final long[] gens = new long[SCRATCH];
    final long[] times = new long[SCRATCH];
  }
}
