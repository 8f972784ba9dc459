package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import org.junit.jupiter.api.Test;

/**
 * The tally the table stage keeps per target against the view counted from every entry: after any
 * sequence of shards added and entries replaced (by the fold's own entries, in any order), a known
 * tally gives exactly {@link TableView#ofEntries}, and an unknown one, counted again, does too.
 */
class TableTallyTest {

  @Property(tries = 300)
  void aKnownTallyIsTheViewOfTheCurrentEntries(
      @ForAll("changes") List<Tuple2<Integer, TableShard>> changes) {
    Map<Integer, TableShard> entries = new HashMap<>();
    TableTally tally = new TableTally();
    for (Tuple2<Integer, TableShard> c : changes) {
      TableShard before = entries.get(c.get1());
      TableShard after = before == null ? c.get2() : before.join(c.get2());
      entries.put(c.get1(), after);
      if (!tally.change(before, after)) {
        assertThat(tally.known()).isFalse();
        tally = new TableTally();
        entries.values().forEach(tally::add);
      }
      assertThat(tally.view()).isEqualTo(TableView.ofEntries(entries.values()));
      assertThat(tally.progress()).isEqualTo(TableProgress.of(entries.values()));
    }
  }

  /** Entries of up to 12 shards, each joined into the shard's entry as the table stage does. */
  @Provide
  Arbitrary<List<Tuple2<Integer, TableShard>>> changes() {
    Arbitrary<TableShard> entry =
        EventArbitraries.event().map(e -> TableShard.of(Join.join(null, e.record())));
    return Combinators.combine(Arbitraries.integers().between(0, 11), entry)
        .as(Tuple::of)
        .list()
        .ofMaxSize(60);
  }

  @Test
  void aChangeAwayFromTheEarliestTimeMakesItUnknownAndOthersDoNot() {
    TableShard oldest = entry(10, 2, 1_000, 3, 100);
    TableShard later = entry(10, 2, 1_000, 3, 200);
    TableTally tally = new TableTally().add(oldest).add(later);
    assertThat(tally.view().oldestPendingMs()).hasValue(100);
    // the shard whose time is not the earliest is merged: the earliest stays
    TableShard laterMerged = entry(10, 10, 1_000, TableShard.NONE, 0);
    assertThat(tally.change(later, laterMerged)).isTrue();
    assertThat(tally.view())
        .isEqualTo(TableView.ofEntries(List.of(oldest, laterMerged)))
        .extracting(TableView::pendingGenerations)
        .isEqualTo(8L);
    // the shard holding the earliest time is merged: the next earliest is another shard's
    assertThat(tally.change(oldest, entry(10, 10, 1_000, TableShard.NONE, 0))).isFalse();
    assertThat(tally.known()).isFalse();
    assertThat(tally.change(laterMerged, laterMerged)).isFalse();
    assertThatThrownBy(tally::view).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(tally::progress).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aTallyOfViewsAloneHasNoProgress() {
    TableShard e = entry(10, 2, 1_000, 3, 100);
    TableTally views = new TableTally().add(e.sealedBytes(), e.view());

    assertThat(views.view()).isEqualTo(TableView.ofEntries(List.of(e)));
    assertThatThrownBy(views::progress)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a shard was added without its entry");
    assertThat(new TableTally().add(e).progress()).isEqualTo(TableProgress.of(List.of(e)));
  }

  @Test
  void aSaturatedSumCannotBeTakenBack() {
    TableShard huge = entry(10, 2, Long.MAX_VALUE - 1, 3, 100);
    TableShard other = entry(10, 2, 5, 3, 100);
    TableTally tally = new TableTally().add(huge).add(other);
    assertThat(tally.view().pendingBytes()).isEqualTo(Long.MAX_VALUE);
    assertThat(tally.change(other, entry(10, 10, 5, TableShard.NONE, 0))).isFalse();
    List<TableShard> now = new ArrayList<>(List.of(huge, entry(10, 10, 5, TableShard.NONE, 0)));
    assertThat(new TableTally().add(now.get(0)).add(now.get(1)).view())
        .isEqualTo(TableView.ofEntries(now));
  }

  private static TableShard entry(long sealed, long merged, long bytes, long gen, long ms) {
    return new TableShard(
        new Mark(sealed, 0),
        new Mark(merged, 0),
        bytes,
        gen,
        ms,
        new TableShard.Kept(1, Math.max(gen, 0)));
  }
}
