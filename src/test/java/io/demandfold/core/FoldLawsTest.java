package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.codec.JsonCodec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** The laws of spec section 9 over random multisets of events. */
class FoldLawsTest {

  @Property(tries = 300)
  void foldIsOrderIndependentAndIdempotent(
      @ForAll("streams") List<DemandEvent> events, @ForAll long seed) {
    Random rnd = new Random(seed);
    List<DemandEvent> shuffled = new ArrayList<>(events);
    for (int i = 0; i < events.size() / 3; i++) {
      shuffled.add(events.get(rnd.nextInt(events.size())));
    }
    Collections.shuffle(shuffled, rnd);

    Fold a = fold(events);
    Fold b = fold(shuffled);
    assertThat(canonical(b)).isEqualTo(canonical(a));
    assertThat(views(b)).isEqualTo(views(a));

    for (DemandEvent e : events) {
      assertThat(a.add(e)).as("re-adding %s changes nothing", e).isFalse();
    }
  }

  @Property(tries = 300)
  void rebuildEqualsFold(@ForAll("streams") List<DemandEvent> events, @ForAll long seed) {
    Random rnd = new Random(seed);
    int parts = 1 + rnd.nextInt(4);
    List<List<DemandEvent>> chunks = new ArrayList<>();
    for (int i = 0; i < parts; i++) {
      chunks.add(new ArrayList<>());
    }
    for (DemandEvent e : events) {
      chunks.get(rnd.nextInt(parts)).add(e);
    }
    Fold rebuilt = new Fold();
    for (List<DemandEvent> chunk : chunks) {
      Fold partial = fold(chunk);
      for (var t : partial.targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          rebuilt.add(t.getKey(), r);
        }
      }
    }
    Fold direct = fold(events);
    assertThat(views(rebuilt)).isEqualTo(views(direct));
    assertThat(canonical(rebuilt)).isEqualTo(canonical(direct));
  }

  @Property(tries = 300)
  void lowerValueFromAnySourceChangesNoWatermark(
      @ForAll("streams") List<DemandEvent> events,
      @ForAll("sources") Source source,
      @ForAll long seed) {
    Random rnd = new Random(seed);
    Fold fold = fold(events);
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        if (r.sealedThrough() == 0) {
          continue;
        }
        ShardRecord.Builder lower =
            ShardRecord.builder(r.shard())
                .sealedThrough(rnd.nextInt((int) Math.min(r.sealedThrough(), 1000)))
                .writerEpoch(rnd.nextInt(4))
                .flushedAtMs(rnd.nextLong())
                .source(source);
        if (r.hasMergedThrough() && r.mergedThroughOrAbsent() > 0) {
          lower.mergedThrough(rnd.nextInt((int) Math.min(r.mergedThroughOrAbsent(), 1000)));
        }
        ShardRecord joined = Join.join(r, lower.build());
        assertThat(joined.sealedMark()).isEqualTo(r.sealedMark());
        assertThat(joined.mergedMark()).isEqualTo(r.mergedMark());
        assertThat(ShardView.of(joined).pendingGenerations())
            .isEqualTo(ShardView.of(r).pendingGenerations());
      }
    }
  }

  /**
   * Rebuild keeps the age clock. It is EXACT only while no generation was ever pruned: the cap
   * keeps the lowest 63 generations even once they are merged (spec section 5).
   */
  @Property(tries = 100)
  void ageClockSurvivesRebuildWhileAtMostCapPending(@ForAll("flushRuns") List<DemandEvent> run) {
    Fold direct = fold(run);
    Fold rebuilt = new Fold();
    for (var t : direct.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        rebuilt.add(t.getKey(), r);
      }
    }
    for (var t : direct.targets().entrySet()) {
      for (var s : t.getValue().entrySet()) {
        ShardView v = ShardView.of(s.getValue());
        assertThat(ShardView.of(rebuilt.shards(t.getKey()).get(s.getKey()))).isEqualTo(v);
        if (v.pendingGenerations() > 0 && s.getValue().sealedThrough() <= Limits.SEALED_TIMES_CAP) {
          assertThat(v.oldestPendingBound()).isEqualTo(Bound.EXACT);
        }
      }
    }
  }

  private static Fold fold(List<DemandEvent> events) {
    Fold f = new Fold();
    events.forEach(f::add);
    return f;
  }

  private static SortedMap<String, String> canonical(Fold f) {
    SortedMap<String, String> out = new TreeMap<>();
    for (var t : f.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        out.put(Keys.shardKey(t.getKey(), r.shard()), new String(JsonCodec.encodeRecord(r)));
      }
    }
    return out;
  }

  private static Map<String, Object> views(Fold f) {
    Map<String, Object> out = new TreeMap<>();
    for (var t : f.targets().entrySet()) {
      out.put(t.getKey(), f.table(t.getKey()));
      for (ShardRecord r : t.getValue().values()) {
        out.put(Keys.shardKey(t.getKey(), r.shard()), ShardView.of(r));
      }
    }
    return out;
  }

  @Provide
  Arbitrary<Source> sources() {
    return Arbitraries.of(Source.class);
  }

  /** Random streams: 1-2 targets, 2-4 shards, 1-3 epochs, all sources, some beyond the cap. */
  @Provide
  Arbitrary<List<DemandEvent>> streams() {
    Arbitrary<List<DemandEvent>> random = event().list().ofMinSize(1).ofMaxSize(120);
    Arbitrary<List<DemandEvent>> beyondCap =
        Combinators.combine(
                Arbitraries.integers().between(100, 160),
                event().list().ofMaxSize(30),
                Arbitraries.longs())
            .as(FoldLawsTest::beyondCapStream);
    return Arbitraries.frequencyOf(Tuple.of(3, random), Tuple.of(1, beyondCap));
  }

  /** A writer flushing consecutive generations of one shard, with merges now and then. */
  @Provide
  Arbitrary<List<DemandEvent>> flushRuns() {
    return Combinators.combine(Arbitraries.integers().between(1, 90), Arbitraries.longs())
        .as(
            (n, seed) -> {
              Random rnd = new Random(seed);
              List<DemandEvent> out = new ArrayList<>();
              long merged = 0;
              for (int g = 1; g <= n; g++) {
                out.add(new DemandEvent("t", Events.writer("s", g, 1, g * 1000L)));
                if (rnd.nextInt(10) == 0) {
                  merged = Math.max(merged, g - rnd.nextInt(3));
                  out.add(new DemandEvent("t", Events.executor("s", g, merged, 1, g * 1000L + 5)));
                }
              }
              Collections.shuffle(out, rnd);
              return out;
            });
  }

  private static List<DemandEvent> beyondCapStream(int n, List<DemandEvent> noise, long seed) {
    Random rnd = new Random(seed);
    List<DemandEvent> out = new ArrayList<>(noise);
    String shard = String.valueOf("ab".charAt(rnd.nextInt(2)));
    for (int g = 1; g <= n; g++) {
      out.add(new DemandEvent("t0", Events.writer(shard, g, 1 + rnd.nextInt(2), g * 1000L)));
    }
    out.add(
        new DemandEvent(
            "t0", Events.executor(shard, n / 2, n / 2 - rnd.nextInt(5), 1, 1_000_000L)));
    Collections.shuffle(out, rnd);
    return out;
  }

  private static Arbitrary<DemandEvent> event() {
    Arbitrary<String> targets = Arbitraries.of("t0", "t1");
    Arbitrary<String> shards = Arbitraries.of("a", "b", "c", "d");
    Arbitrary<Long> generations = Arbitraries.longs().between(0, 150);
    Arbitrary<Long> epochs = Arbitraries.longs().between(1, 3);
    Arbitrary<Source> sources = Arbitraries.of(Source.class);
    Arbitrary<Long> merged = Arbitraries.longs().between(0, 150).injectNull(0.4);
    Arbitrary<Long> mergedEpoch = Arbitraries.longs().between(1, 3).injectNull(0.7);
    Arbitrary<Map<Long, Long>> times =
        Arbitraries.maps(
                Arbitraries.longs().between(0, 150), Arbitraries.longs().between(0, 200_000))
            .ofMaxSize(6);
    return Combinators.combine(
            targets,
            shards,
            generations,
            epochs,
            sources,
            merged,
            mergedEpoch,
            Combinators.combine(
                    times, Arbitraries.longs().between(0, 9), Arbitraries.longs().between(0, 1000))
                .as(Tuple::of))
        .as(
            (target, shard, gen, epoch, source, mergedThrough, mEpoch, extra) -> {
              ShardRecord.Builder b =
                  ShardRecord.builder(shard)
                      .sealedThrough(gen)
                      .writerEpoch(epoch)
                      .flushedAtMs(gen * 1000 + extra.get2())
                      .sealedBytesThrough(gen * 100 + extra.get3())
                      .source(source)
                      .sealedTimes(SealedTimes.of(extra.get1()));
              if (mergedThrough != null) {
                b.mergedThrough(mergedThrough);
                if (mEpoch != null) {
                  b.mergedEpoch(mEpoch);
                }
              }
              return new DemandEvent(target, b.build());
            });
  }
}
