package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * The compact table entry ({@link TableShard}) against the fold: along the states a fold goes
 * through, the entry never goes back in {@link TableShard#AGE_ORDER}; joining the entries of any of
 * those states, in any order, gives the entry of the last state, whose view is the record's view.
 */
class TableShardTest {

  @Property(tries = 500)
  void entriesOfAFoldNeverGoBackAndJoinToTheEntryOfItsLastState(
      @ForAll("foldedInAnyOrder") Tuple2<List<ShardRecord>, List<TableShard>> run) {
    List<ShardRecord> states = run.get1();
    ShardRecord last = states.get(states.size() - 1);
    TableShard expected = TableShard.of(last);
    for (int i = 1; i < states.size(); i++) {
      assertThat(
              TableShard.AGE_ORDER.compare(
                  TableShard.of(states.get(i - 1)), TableShard.of(states.get(i))))
          .as("state %d to %d", i - 1, i)
          .isLessThanOrEqualTo(0);
    }
    TableShard joined = null;
    for (TableShard e : run.get2()) {
      joined = joined == null ? e : joined.join(e);
    }
    assertThat(joined).isEqualTo(expected);
    assertThat(joined.view()).isEqualTo(ShardView.of(last));
    assertThat(joined.join(TableShard.of(states.get(0)))).isSameAs(joined);
  }

  /**
   * The states a fold of one shard's events goes through (each a change), and their entries
   * shuffled, some twice.
   */
  @Provide
  Arbitrary<Tuple2<List<ShardRecord>, List<TableShard>>> foldedInAnyOrder() {
    Arbitrary<List<ShardRecord>> shortStreams =
        EventArbitraries.event().map(DemandEvent::record).list().ofMinSize(1).ofMaxSize(80);
    Arbitrary<List<ShardRecord>> longLived =
        Arbitraries.integers()
            .between(70, 200)
            .flatMap(
                n ->
                    EventArbitraries.event()
                        .map(DemandEvent::record)
                        .list()
                        .ofMaxSize(20)
                        .flatMap(noise -> Arbitraries.shuffle(flushes(n, noise))));
    return Arbitraries.oneOf(shortStreams, longLived)
        .map(TableShardTest::states)
        .flatMap(
            states -> {
              List<TableShard> entries = new ArrayList<>();
              states.forEach(s -> entries.add(TableShard.of(s)));
              return Arbitraries.of(entries)
                  .list()
                  .ofMaxSize(entries.size())
                  .flatMap(
                      again -> {
                        List<TableShard> all = new ArrayList<>(entries);
                        all.addAll(again);
                        return Arbitraries.shuffle(all).map(order -> Tuple.of(states, order));
                      });
            });
  }

  /** A writer flushing g1..gN, executors merging now and then, and other events of the shard. */
  private static List<ShardRecord> flushes(int n, List<ShardRecord> noise) {
    List<ShardRecord> out = new ArrayList<>(noise);
    for (int g = 1; g <= n; g++) {
      out.add(Events.writer("a", g, 1, g * 1000L));
      if (g % 17 == 0) {
        out.add(Events.executor("a", g, Math.max(0, g - 20), 1, g * 1000L + 1));
      }
    }
    return out;
  }

  /** The distinct states of folding {@code events} of shard a in order. */
  private static List<ShardRecord> states(List<ShardRecord> events) {
    List<ShardRecord> out = new ArrayList<>();
    ShardRecord stored = null;
    for (ShardRecord e : events) {
      ShardRecord next = Join.join(stored, "a".equals(e.shard()) ? e : rename(e));
      if (next != stored) {
        out.add(next);
        stored = next;
      }
    }
    return out;
  }

  private static ShardRecord rename(ShardRecord e) {
    ShardRecord.Builder b =
        ShardRecord.builder("a")
            .sealedThrough(e.sealedThrough())
            .sealedBytesThrough(e.sealedBytesThrough())
            .flushedAtMs(e.flushedAtMs())
            .writerEpoch(e.writerEpoch())
            .source(e.source())
            .sealedTimes(e.sealedTimes());
    if (e.hasMergedThrough()) {
      b.mergedThrough(e.mergedThroughOrAbsent());
      if (e.mergedEpochOrAbsent() != ShardRecord.ABSENT) {
        b.mergedEpoch(e.mergedEpochOrAbsent());
      }
    }
    return b.build();
  }
}
