package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.codec.JsonCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** The laws of docs/model.md section 9 over random multisets of events. */
class FoldLawsTest {

  @Property(tries = 300)
  void foldIsOrderIndependentAndIdempotent(@ForAll("redelivered") Redelivered run) {
    Fold a = fold(run.events());
    Fold b = fold(run.delivered());
    assertThat(canonical(b)).isEqualTo(canonical(a));
    assertThat(views(b)).isEqualTo(views(a));

    for (DemandEvent e : run.events()) {
      assertThat(a.add(e)).as("re-adding %s changes nothing", e).isFalse();
    }
  }

  /** A stream, and the same events delivered in another order with up to a third again. */
  record Redelivered(List<DemandEvent> events, List<DemandEvent> delivered) {}

  @Provide
  Arbitrary<Redelivered> redelivered() {
    return streams()
        .flatMap(
            events ->
                Arbitraries.of(events)
                    .list()
                    .ofMaxSize(events.size() / 3)
                    .flatMap(
                        again -> {
                          List<DemandEvent> delivered = new ArrayList<>(events);
                          delivered.addAll(again);
                          return Arbitraries.shuffle(delivered)
                              .map(order -> new Redelivered(events, order));
                        }));
  }

  @Property(tries = 300)
  void rebuildEqualsFold(@ForAll("split") Split run) {
    Fold rebuilt = new Fold();
    for (List<DemandEvent> chunk : run.chunks()) {
      Fold partial = fold(chunk);
      for (var t : partial.targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          rebuilt.add(t.getKey(), r);
        }
      }
    }
    Fold direct = fold(run.events());
    assertThat(views(rebuilt)).isEqualTo(views(direct));
    assertThat(canonical(rebuilt)).isEqualTo(canonical(direct));
  }

  /** A stream, and the same events cut into up to four partial folds (some may be empty). */
  record Split(List<DemandEvent> events, List<List<DemandEvent>> chunks) {}

  @Provide
  Arbitrary<Split> split() {
    return streams()
        .flatMap(
            events ->
                Arbitraries.integers()
                    .between(0, 3)
                    .list()
                    .ofSize(events.size())
                    .map(cut -> new Split(events, chunks(events, cut))));
  }

  /** {@code events} into four chunks, event i into chunk {@code cut.get(i)}. */
  private static List<List<DemandEvent>> chunks(List<DemandEvent> events, List<Integer> cut) {
    List<List<DemandEvent>> chunks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      chunks.add(new ArrayList<>());
    }
    for (int i = 0; i < events.size(); i++) {
      chunks.get(cut.get(i)).add(events.get(i));
    }
    return chunks;
  }

  @Property(tries = 300)
  void lowerValueFromAnySourceChangesNoWatermark(@ForAll("lowered") Lowered run) {
    Fold fold = fold(run.events());
    int i = 0;
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        Lower by = run.lowers().get(i++);
        if (r.sealedThrough() == 0) {
          continue;
        }
        ShardRecord.Builder lower =
            ShardRecord.builder(r.shard())
                .sealedThrough(by.sealedBelow() % Math.min(r.sealedThrough(), 1000))
                .writerEpoch(by.epoch())
                .flushedAtMs(by.flushedAtMs())
                .source(by.source());
        if (r.hasMergedThrough() && r.mergedThroughOrAbsent() > 0) {
          lower.mergedThrough(by.mergedBelow() % Math.min(r.mergedThroughOrAbsent(), 1000));
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
   * A record lower than a folded one: its sealed (and merged) generation is {@code sealedBelow}
   * ({@code mergedBelow}) modulo the folded one's, so below it; any epoch up to 3, flush time and
   * source.
   */
  record Lower(long sealedBelow, long mergedBelow, long epoch, long flushedAtMs, Source source) {}

  /** A stream, and a {@link Lower} for each shard of its fold, in the fold's order. */
  record Lowered(List<DemandEvent> events, List<Lower> lowers) {}

  @Provide
  Arbitrary<Lowered> lowered() {
    Arbitrary<Lower> lower =
        Combinators.combine(
                Arbitraries.longs().between(0, 999),
                Arbitraries.longs().between(0, 999),
                Arbitraries.longs().between(0, 3),
                Arbitraries.longs(),
                Arbitraries.of(Source.class))
            .as(Lower::new);
    return streams()
        .flatMap(
            events ->
                lower
                    .list()
                    .ofSize(shardCount(fold(events)))
                    .map(lowers -> new Lowered(events, lowers)));
  }

  private static int shardCount(Fold f) {
    return f.targets().values().stream().mapToInt(Map::size).sum();
  }

  /**
   * Long-lived shards (100-300 generations each, merged now and then, in any order, duplicated):
   * the record keeps the flush times of the 64 highest generations above merged, whether a merge
   * arrives before or after the flushes it covers; the age clock is EXACT whenever at most 64
   * generations are pending, else the time of the 64th-newest generation, UPPER (docs/model.md
   * sections 5 and 6); the same after a rebuild from partial folds, record bytes included.
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
      ShardRecord record = direct.shards("t").get(shard.getKey());
      ShardView v = ShardView.of(record);
      assertThat(v.pendingGenerations()).isEqualTo(pending);
      // section 5: the flush times of the 64 highest generations above merged, and no others
      SealedTimes kept = record.sealedTimes();
      assertThat(kept.size()).isEqualTo((int) Math.min(Limits.SEALED_TIMES_CAP, pending));
      if (kept.size() > 0) {
        assertThat(kept.generation(0)).isGreaterThan(merged);
        assertThat(kept.generation(kept.size() - 1)).isEqualTo(sealed);
      }
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
    return Arbitraries.frequencyOf(Tuple.of(3, random), Tuple.of(1, beyondCap()));
  }

  /**
   * Shard a or b of t0 flushed g1..gN (N 100-160, epoch 1 or 2 each) and merged about halfway by an
   * executor, among up to 30 random events, in any order.
   */
  private static Arbitrary<List<DemandEvent>> beyondCap() {
    return Combinators.combine(
            Arbitraries.of("a", "b"),
            Arbitraries.integers().between(100, 160),
            Arbitraries.integers().between(0, 4),
            EventArbitraries.event().list().ofMaxSize(30))
        .flatAs(
            (shard, n, behind, noise) ->
                Arbitraries.longs()
                    .between(1, 2)
                    .list()
                    .ofSize(n)
                    .flatMap(
                        epochs -> {
                          List<DemandEvent> out = new ArrayList<>(noise);
                          for (int g = 1; g <= n; g++) {
                            out.add(
                                new DemandEvent(
                                    "t0", Events.writer(shard, g, epochs.get(g - 1), g * 1000L)));
                          }
                          out.add(
                              new DemandEvent(
                                  "t0",
                                  Events.executor(shard, n / 2, n / 2 - behind, 1, 1_000_000L)));
                          return Arbitraries.shuffle(out);
                        }));
  }
}
