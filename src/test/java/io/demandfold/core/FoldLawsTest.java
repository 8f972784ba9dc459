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
   * Long-lived shards (100-300 generations each, merged now and then, in any order, duplicated):
   * the age clock is EXACT whenever at most 64 generations are pending, else the time of the
   * 64th-newest generation, UPPER (spec sections 5 and 6); the same after a rebuild from partial
   * folds, record bytes included.
   */
  @Property(tries = 200)
  void ageClockOfLongLivedShardsSurvivesOrderDuplicationAndRebuild(
      @ForAll("longLived") LongLived run) {
    Fold direct = fold(run.events());
    Fold rebuilt = new Fold();
    for (List<DemandEvent> chunk : run.chunks()) {
      for (var t : fold(chunk).targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          rebuilt.add(t.getKey(), r);
        }
      }
    }
    assertThat(canonical(rebuilt)).isEqualTo(canonical(direct));
    for (var shard : run.flushed().entrySet()) {
      long sealed = shard.getValue();
      long merged = run.merged().getOrDefault(shard.getKey(), 0L);
      long pending = Math.max(0, sealed - merged);
      ShardView v = ShardView.of(direct.shards("t").get(shard.getKey()));
      assertThat(v.pendingGenerations()).isEqualTo(pending);
      if (pending == 0) {
        assertThat(v.oldestPendingBound()).isNull();
      } else if (pending <= Limits.SEALED_TIMES_CAP) {
        assertThat(v.oldestPendingMs()).hasValue((merged + 1) * 1000);
        assertThat(v.oldestPendingBound()).isEqualTo(Bound.EXACT);
      } else {
        assertThat(v.oldestPendingMs()).hasValue((sealed - Limits.SEALED_TIMES_CAP + 1) * 1000);
        assertThat(v.oldestPendingBound()).isEqualTo(Bound.UPPER);
      }
    }
  }

  /**
   * A stream of long-lived shards of target {@code t}: its events in delivery order (shuffled, some
   * twice), the same events cut into chunks for a rebuild, and per shard the highest generation
   * flushed and merged.
   */
  record LongLived(
      List<DemandEvent> events,
      List<List<DemandEvent>> chunks,
      Map<String, Long> flushed,
      Map<String, Long> merged) {}

  @Provide
  Arbitrary<LongLived> longLived() {
    Arbitrary<List<DemandEvent>> shard =
        Combinators.combine(
                Arbitraries.of("a", "b", "c", "d"),
                Arbitraries.integers().between(100, 300),
                Arbitraries.integers().between(0, 8))
            .flatAs(
                (id, n, carried) ->
                    Arbitraries.integers()
                        .between(0, n)
                        .list()
                        .ofMaxSize(6)
                        .map(merges -> shardStream(id, n, carried, merges)));
    return shard
        .list()
        .ofMinSize(1)
        .ofMaxSize(3)
        .uniqueElements(events -> events.get(0).record().shard())
        .flatMap(
            streams -> {
              List<DemandEvent> all = new ArrayList<>();
              streams.forEach(all::addAll);
              return Combinators.combine(
                      Arbitraries.of(all).list().ofMaxSize(all.size() / 3),
                      Arbitraries.integers().between(0, 3).list().ofSize(all.size()))
                  .flatAs(
                      (dups, cut) -> {
                        List<DemandEvent> delivered = new ArrayList<>(all);
                        delivered.addAll(dups);
                        return Arbitraries.shuffle(delivered)
                            .map(order -> longLived(all, order, cut));
                      });
            });
  }

  /**
   * Shard {@code id}: a writer flushes g1..gN at g*1000 ms, each event carrying the flush times of
   * up to {@code carried} generations before it; an executor reports each merge of {@code merges}.
   */
  private static List<DemandEvent> shardStream(
      String id, int n, int carried, List<Integer> merges) {
    List<DemandEvent> out = new ArrayList<>();
    for (int g = 1; g <= n; g++) {
      SealedTimes.Builder times = new SealedTimes.Builder();
      for (int u = Math.max(1, g - carried); u < g; u++) {
        times.put(u, u * 1000L);
      }
      ShardRecord w =
          Events.writer(id, g, 1, g * 1000L).toBuilder().sealedTimes(times.build()).build();
      out.add(new DemandEvent("t", w));
    }
    for (int m : merges) {
      out.add(new DemandEvent("t", Events.executor(id, m, m, 1, 5_000_000L + m)));
    }
    return out;
  }

  private static LongLived longLived(
      List<DemandEvent> all, List<DemandEvent> delivered, List<Integer> cut) {
    List<List<DemandEvent>> chunks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      chunks.add(new ArrayList<>());
    }
    for (int i = 0; i < all.size(); i++) {
      chunks.get(cut.get(i)).add(all.get(i));
    }
    Map<String, Long> flushed = new TreeMap<>();
    Map<String, Long> merged = new TreeMap<>();
    for (DemandEvent e : all) {
      ShardRecord r = e.record();
      if (r.source() == Source.WRITER) {
        flushed.merge(r.shard(), r.sealedThrough(), Math::max);
      } else {
        merged.merge(r.shard(), r.mergedThroughOrAbsent(), Math::max);
      }
    }
    return new LongLived(delivered, chunks, flushed, merged);
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
    Arbitrary<List<DemandEvent>> random =
        EventArbitraries.event().list().ofMinSize(1).ofMaxSize(120);
    Arbitrary<List<DemandEvent>> beyondCap =
        Combinators.combine(
                Arbitraries.integers().between(100, 160),
                EventArbitraries.event().list().ofMaxSize(30),
                Arbitraries.longs())
            .as(FoldLawsTest::beyondCapStream);
    return Arbitraries.frequencyOf(Tuple.of(3, random), Tuple.of(1, beyondCap));
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
}
