package io.demandfold.core;

/**
 * The join of a stored per-shard record and an event (spec section 4): each dimension is joined
 * independently, so the result is a function of the set of events folded, whatever their order or
 * duplication.
 *
 * <pre>{@code
 * ShardRecord stored = null;
 * for (ShardRecord event : events) {
 *   ShardRecord next = Join.join(stored, event);
 *   if (next == stored) continue; // a no-op: nothing to write
 *   stored = next;
 * }
 * }</pre>
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

    SealedTimes times =
        stored.sealedTimes().size() <= Limits.SEALED_TIMES_CAP
                && covers(
                    stored.sealedTimes(),
                    SealedTimes.EMPTY,
                    ownGeneration(stored),
                    stored.flushedAtMs())
                && covers(
                    stored.sealedTimes(),
                    event.sealedTimes(),
                    ownGeneration(event),
                    event.flushedAtMs())
            ? stored.sealedTimes()
            : cappedUnion(stored, event);
    if (times == null) {
      times =
          unionPruned(
              stored.sealedTimes(),
              ownGeneration(stored),
              stored.flushedAtMs(),
              event.sealedTimes(),
              ownGeneration(event),
              event.flushedAtMs(),
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

  /** The union of two sealed_times, earliest per generation, pruned; {@code a} when equal to it. */
  static SealedTimes unionPruned(SealedTimes a, SealedTimes b) {
    return unionPruned(a, NONE, 0, b, NONE, 0, a);
  }

  /**
   * The union when the stored map is full and everything the join adds lies above its 63rd lowest
   * generation: the lowest 63 stay as they are and only the single highest can change (spec section
   * 5). Returns the stored map itself when nothing changes, {@code null} when the shortcut does not
   * apply.
   */
  private static SealedTimes cappedUnion(ShardRecord stored, ShardRecord event) {
    SealedTimes st = stored.sealedTimes();
    int cap = Limits.SEALED_TIMES_CAP;
    if (st.size() != cap) {
      return null;
    }
    long floor = st.generation(cap - 2);
    long maxGen = st.generation(cap - 1);
    long maxTime = st.time(cap - 1);
    SealedTimes et = event.sealedTimes();
    if (et.size() > 0 && et.generation(0) <= floor) {
      return null;
    }
    for (int i = 0; i < et.size(); i++) {
      long g = et.generation(i);
      if (g > maxGen) {
        maxGen = g;
        maxTime = et.time(i);
      } else if (g == maxGen) {
        maxTime = Math.min(maxTime, et.time(i));
      }
    }
    long[] own = {ownGeneration(stored), ownGeneration(event)};
    long[] ownTime = {stored.flushedAtMs(), event.flushedAtMs()};
    for (int k = 0; k < 2; k++) {
      if (own[k] == NONE) {
        continue;
      }
      if (own[k] <= floor) {
        return null;
      }
      if (own[k] > maxGen) {
        maxGen = own[k];
        maxTime = ownTime[k];
      } else if (own[k] == maxGen) {
        maxTime = Math.min(maxTime, ownTime[k]);
      }
    }
    if (maxGen == st.generation(cap - 1) && maxTime == st.time(cap - 1)) {
      return st;
    }
    long[] g = new long[cap];
    long[] t = new long[cap];
    for (int i = 0; i < cap - 1; i++) {
      g[i] = st.generation(i);
      t[i] = st.time(i);
    }
    g[cap - 1] = maxGen;
    t[cap - 1] = maxTime;
    return new SealedTimes(g, t, cap);
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
   * to the lowest 63 plus the highest. Returns {@code reuse} itself when the result equals it.
   */
  private static SealedTimes unionPruned(
      SealedTimes ta,
      long ownA,
      long timeA,
      SealedTimes tb,
      long ownB,
      long timeB,
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
    if (n > Limits.SEALED_TIMES_CAP) {
      gens[Limits.SEALED_TIMES_CAP - 1] = gens[n - 1];
      times[Limits.SEALED_TIMES_CAP - 1] = times[n - 1];
      n = Limits.SEALED_TIMES_CAP;
    }
    if (reuse.sameAs(gens, times, n)) {
      return reuse;
    }
    if (n == 0) {
      return SealedTimes.EMPTY;
    }
    long[] g = new long[n];
    long[] t = new long[n];
    System.arraycopy(gens, 0, g, 0, n);
    System.arraycopy(times, 0, t, 0, n);
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
