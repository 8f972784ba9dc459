package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import org.junit.jupiter.api.Test;

/**
 * The progress of a table against the fold: a fold that has seen every event of another never has a
 * lower progress, and has the same only when its entries are the same; sums are exact.
 */
class TableProgressTest {

  @Property(tries = 500)
  void aFoldThatHasSeenMoreEventsNeverHasALowerProgressAndTheSameOnlyWithTheSameEntries(
      @ForAll("eventsAndASubset") Tuple2<List<ShardRecord>, List<Boolean>> run) {
    List<ShardRecord> all = run.get1();
    List<ShardRecord> some = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      if (run.get2().get(i)) {
        some.add(all.get(i));
      }
    }
    Map<String, TableShard> more = entries(all);
    Map<String, TableShard> fewer = entries(some);

    int c = TableProgress.of(more.values()).compareTo(TableProgress.of(fewer.values()));

    assertThat(c).isGreaterThanOrEqualTo(0);
    assertThat(c == 0).as("equal progress, equal entries").isEqualTo(more.equals(fewer));
  }

  @Property(tries = 300)
  void eachStateOfATableStageRaisesItsProgress(@ForAll("events") List<ShardRecord> events) {
    Map<String, TableShard> entries = new TreeMap<>();
    TableProgress before = TableProgress.of(entries.values());
    for (ShardRecord e : events) {
      TableShard stored = entries.get(e.shard());
      TableShard incoming = TableShard.of(Join.join(null, e));
      TableShard joined = stored == null ? incoming : stored.join(incoming);
      entries.put(e.shard(), joined);
      TableProgress after = TableProgress.of(entries.values());
      if (joined == stored) {
        assertThat(after).isEqualTo(before);
      } else {
        assertThat(after).isGreaterThan(before);
      }
      before = after;
    }
  }

  @Provide
  Arbitrary<List<ShardRecord>> events() {
    return EventArbitraries.event().map(DemandEvent::record).list().ofMinSize(1).ofMaxSize(80);
  }

  @Provide
  Arbitrary<Tuple2<List<ShardRecord>, List<Boolean>>> eventsAndASubset() {
    return events()
        .flatMap(
            list ->
                Arbitraries.of(true, false)
                    .list()
                    .ofSize(list.size())
                    .map(mask -> Tuple.of(list, mask)));
  }

  /** The table entries of folding {@code events}, shard by shard. */
  private static Map<String, TableShard> entries(List<ShardRecord> events) {
    Map<String, ShardRecord> folded = new TreeMap<>();
    for (ShardRecord e : events) {
      folded.put(e.shard(), Join.join(folded.get(e.shard()), e));
    }
    Map<String, TableShard> out = new TreeMap<>();
    folded.forEach((shard, r) -> out.put(shard, TableShard.of(r)));
    return out;
  }

  @Test
  void sumsAreExactPast64BitsAndTakeBackWhatTheyAdded() {
    Mark huge = new Mark(Long.MAX_VALUE, Long.MAX_VALUE);
    TableShard big =
        new TableShard(
            huge, huge, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, TableShard.Kept.NONE);
    TableShard small = TableShard.of(Events.fold(Events.writer("a", 2, 1, 1000)));
    BigInteger max = BigInteger.valueOf(Long.MAX_VALUE);

    TableProgress.Sum sum = new TableProgress.Sum().add(big).add(big).add(small).add(big);
    List<BigInteger> sums = sum.progress().sums();

    assertThat(sums.get(0)).isEqualTo(BigInteger.valueOf(4));
    assertThat(sums.get(4)).isEqualTo(max.multiply(BigInteger.valueOf(3)).add(BigInteger.TWO));
    assertThat(sums.get(10))
        .as("minus the oldest times")
        .isEqualTo(max.multiply(BigInteger.valueOf(-3)).subtract(BigInteger.valueOf(1000)));
    assertThat(sum.progress()).isEqualTo(TableProgress.of(List.of(big, small, big, big)));
    assertThat(sum.remove(big).remove(big).remove(big).progress())
        .isEqualTo(TableProgress.of(List.of(small)));
    assertThat(sum.remove(small).progress().sums()).containsOnly(BigInteger.ZERO);
  }

  @Test
  void theFieldsComeInTheOrderOfTheEntries() {
    TableShard older = TableShard.of(Events.fold(Events.writer("a", 2, 1, 1000)));
    // a later oldest time is an older entry: the fields after the marks decide the order
    TableShard earlier = TableShard.of(Events.fold(Events.writer("a", 2, 1, 900)));
    TableShard merged = TableShard.of(Events.fold(Events.writer("a", 2, 1, 1, 1000)));

    assertThat(TableShard.AGE_ORDER.compare(earlier, older)).isPositive();
    assertThat(TableProgress.of(List.of(earlier))).isGreaterThan(TableProgress.of(List.of(older)));
    assertThat(TableProgress.of(List.of(merged))).isGreaterThan(TableProgress.of(List.of(earlier)));
    assertThat(TableProgress.of(List.of(older, older)))
        .as("another shard counts first")
        .isGreaterThan(TableProgress.of(List.of(merged)));
    assertThatThrownBy(() -> TableProgress.of(List.of(BigInteger.ONE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a table progress has 12 fields, not 1");
  }
}
