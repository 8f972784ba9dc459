package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * {@link Join} against docs/model.md sections 4 and 5 written as plainly as possible (maps, no
 * shortcuts): a test oracle, including stored records another writer put in etcd (not normalised,
 * more than 64 flush times).
 */
class JoinOracleTest {

  @Property(tries = 2000)
  void shouldJoinExactlyAsTheSpecSays(@ForAll("joins") Case c) {
    ShardRecord joined = Join.join(c.stored(), c.event());
    assertThat(joined).isEqualTo(oracle(c.stored(), c.event()));
    if (joined.equals(c.stored())) {
      assertThat(joined).isSameAs(c.stored());
    }
  }

  /** A record in etcd and an event joined into it. */
  record Case(ShardRecord stored, ShardRecord event) {}

  /**
   * Stored: up to 70 flush times, or 65 to 120 as another writer may have put (a fifth), and
   * normalised by a join half the time. Event: any record with up to 10 flush times, or (a third)
   * one whose flush times the stored record mostly holds already.
   */
  @Provide
  Arbitrary<Case> joins() {
    Arbitrary<ShardRecord> stored =
        Combinators.combine(
                Arbitraries.frequencyOf(Tuple.of(4, record(0, 70)), Tuple.of(1, record(65, 120))),
                Arbitraries.of(false, true))
            .as((r, normalised) -> normalised ? Join.join(null, r) : r);
    return stored.flatMap(
        s ->
            Arbitraries.frequencyOf(Tuple.of(2, record(0, 10)), Tuple.of(1, covered(s)))
                .map(e -> new Case(s, e)));
  }

  /** Spec section 4, step by step. */
  static ShardRecord oracle(ShardRecord a, ShardRecord b) {
    ShardRecord w = winner(a, b);
    Mark merged = max(a.mergedMark(), b.mergedMark());
    TreeMap<Long, Long> times = new TreeMap<>();
    for (ShardRecord r : new ShardRecord[] {a, b}) {
      r.sealedTimes().asMap().forEach((g, t) -> times.merge(g, t, Math::min));
      if (r.source() != Source.EXECUTOR && r.sealedThrough() > 0) {
        times.merge(r.sealedThrough(), r.flushedAtMs(), Math::min);
      }
    }
    while (times.size() > Limits.SEALED_TIMES_CAP) {
      times.remove(times.firstKey());
    }
    if (merged != null) {
      // section 5: nothing at or below merged is kept
      times.headMap(merged.value(), true).clear();
    }
    ShardRecord.Builder out =
        ShardRecord.builder(w.shard())
            .sealedThrough(w.sealedThrough())
            .writerEpoch(w.writerEpoch())
            .flushedAtMs(w.flushedAtMs())
            .source(w.source())
            .sealedBytesThrough(Math.max(a.sealedBytesThrough(), b.sealedBytesThrough()))
            .sealedTimes(SealedTimes.of(times));
    if (merged != null) {
      out.mergedThrough(merged.value());
      if (merged.epoch() != w.writerEpoch()) {
        out.mergedEpoch(merged.epoch());
      }
    }
    return out.build();
  }

  private static ShardRecord winner(ShardRecord a, ShardRecord b) {
    int c = a.sealedMark().compareTo(b.sealedMark());
    if (c == 0) {
      c = Long.compare(b.flushedAtMs(), a.flushedAtMs());
    }
    if (c == 0) {
      c = Integer.compare(rank(b.source()), rank(a.source()));
    }
    return c >= 0 ? a : b;
  }

  private static int rank(Source s) {
    return s == Source.WRITER ? 0 : s == Source.SCAN ? 1 : 2;
  }

  private static Mark max(Mark a, Mark b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** Any record of shard s with {@code minTimes} to {@code maxTimes} flush times. */
  private static Arbitrary<ShardRecord> record(int minTimes, int maxTimes) {
    return Combinators.combine(
            Arbitraries.longs().between(0, 149),
            Arbitraries.longs().between(1, 3),
            Arbitraries.longs().between(0, 4999),
            Arbitraries.longs().between(0, 999),
            Arbitraries.of(Source.class),
            Arbitraries.longs().between(0, 149).injectNull(0.5),
            Arbitraries.longs().between(1, 3).injectNull(0.5),
            flushTimes(minTimes, maxTimes))
        .as(
            (through, epoch, flushedAt, bytes, source, merged, mergedEpoch, times) -> {
              ShardRecord.Builder b =
                  ShardRecord.builder("s")
                      .sealedThrough(through)
                      .writerEpoch(epoch)
                      .flushedAtMs(flushedAt)
                      .sealedBytesThrough(bytes)
                      .source(source)
                      .sealedTimes(SealedTimes.of(times));
              if (merged != null) {
                b.mergedThrough(merged);
                if (mergedEpoch != null) {
                  b.mergedEpoch(mergedEpoch);
                }
              }
              return b.build();
            });
  }

  /**
   * {@code minTimes} to {@code maxTimes} flush times of generations below 200, at times below 5000:
   * the first generations of a shuffle, which needs no retries for distinct keys as a map does.
   */
  private static Arbitrary<Map<Long, Long>> flushTimes(int minTimes, int maxTimes) {
    List<Long> generations = LongStream.range(0, 200).boxed().toList();
    return Combinators.combine(
            Arbitraries.integers().between(minTimes, maxTimes),
            Arbitraries.shuffle(generations),
            Arbitraries.longs().between(0, 4999).list().ofSize(maxTimes))
        .as(
            (n, order, at) -> {
              Map<Long, Long> times = new TreeMap<>();
              for (int i = 0; i < n; i++) {
                times.put(order.get(i), at.get(i));
              }
              return times;
            });
  }

  /**
   * An event of the stored record: about a third of its flush times, each as stored or a
   * millisecond later, and its flush time or a millisecond later.
   */
  private static Arbitrary<ShardRecord> covered(ShardRecord stored) {
    Map<Long, Long> held = stored.sealedTimes().asMap();
    // per flush time: left out (2 in 3), kept, or kept a millisecond later
    Arbitrary<Integer> choice =
        Arbitraries.frequency(Tuple.of(4, 0), Tuple.of(1, 1), Tuple.of(1, 2));
    return Combinators.combine(choice.list().ofSize(held.size()), Arbitraries.longs().between(0, 1))
        .as(
            (choices, later) -> {
              TreeMap<Long, Long> times = new TreeMap<>();
              int i = 0;
              for (Map.Entry<Long, Long> e : held.entrySet()) {
                int c = choices.get(i++);
                if (c > 0) {
                  times.put(e.getKey(), e.getValue() + (c - 1));
                }
              }
              return stored.toBuilder()
                  .sealedTimes(SealedTimes.of(times))
                  .flushedAtMs(stored.flushedAtMs() + later)
                  .build();
            });
  }
}
