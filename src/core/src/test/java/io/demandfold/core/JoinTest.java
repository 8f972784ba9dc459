package io.demandfold.core;

import static io.demandfold.core.Events.executor;
import static io.demandfold.core.Events.fold;
import static io.demandfold.core.Events.scan;
import static io.demandfold.core.Events.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.Map;
import org.junit.jupiter.api.Test;

class JoinTest {

  @Test
  void shouldReturnTheStoredInstanceWhenNothingChanges() {
    ShardRecord stored = fold(writer("s", 5, 1, 5000), executor("s", 5, 3, 1, 6000));
    assertThat(Join.join(stored, writer("s", 5, 1, 5000))).isSameAs(stored);
    assertThat(Join.join(stored, writer("s", 4, 1, 4000))).isNotSameAs(stored);
    assertThat(Join.join(stored, executor("s", 2, 2, 1, 1))).isSameAs(stored);
  }

  @Test
  void shouldBreakSealedTiesBySmallerFlushTimeThenSourceOrder() {
    ShardRecord early = writer("s", 10, 1, 1000);
    ShardRecord late = writer("s", 10, 1, 2000);
    assertThat(fold(late, early).flushedAtMs()).isEqualTo(1000);
    assertThat(fold(early, late).flushedAtMs()).isEqualTo(1000);

    ShardRecord bySource = fold(executor("s", 10, 0, 1, 1000), scan("s", 10, 0, 1, 1000));
    assertThat(bySource.source()).isEqualTo(Source.SCAN);
    ShardRecord bySource2 = fold(scan("s", 10, 0, 1, 1000), writer("s", 10, 1, 1000));
    assertThat(bySource2.source()).isEqualTo(Source.WRITER);
  }

  @Test
  void shouldTakeTheWinnersWriterFieldsTogether() {
    ShardRecord r = fold(writer("s", 10, 2, 1000), executor("s", 11, 0, 1, 5000));
    assertThat(r.sealedThrough()).isEqualTo(11);
    assertThat(r.writerEpoch()).isEqualTo(1);
    assertThat(r.source()).isEqualTo(Source.EXECUTOR);
    assertThat(r.flushedAtMs()).isEqualTo(5000);
  }

  @Test
  void shouldKeepSealedBytesAsMaxIndependentlyOfTheSealedWinner() {
    ShardRecord big = writer("s", 5, 1, 5).toBuilder().sealedBytesThrough(900).build();
    ShardRecord newer = writer("s", 6, 1, 6).toBuilder().sealedBytesThrough(100).build();
    ShardRecord r = fold(big, newer);
    assertThat(r.sealedThrough()).isEqualTo(6);
    assertThat(r.sealedBytesThrough()).isEqualTo(900);
  }

  @Test
  void shouldWriteMergedEpochOnlyWhenItDiffersFromTheResultWriterEpoch() {
    ShardRecord sameEpoch =
        fold(writer("s", 10, 2, 1).toBuilder().mergedThrough(4).mergedEpoch(2).build());
    assertThat(sameEpoch.mergedEpoch()).isEmpty();
    assertThat(sameEpoch.mergedMark()).isEqualTo(new Mark(4, 2));

    ShardRecord r = fold(executor("s", 10, 8, 1, 1), writer("s", 12, 2, 2));
    assertThat(r.mergedEpoch()).hasValue(1);
    ShardRecord back = Join.join(r, writer("s", 13, 1, 3));
    assertThat(back.writerEpoch()).isEqualTo(1);
    assertThat(back.mergedEpoch()).isEmpty();
    assertThat(back.mergedMark()).isEqualTo(new Mark(8, 1));
  }

  @Test
  void shouldUnionSealedTimesKeepingTheEarliestAndPruneToTheHighest64() {
    ShardRecord a =
        writer("s", 3, 1, 3000).toBuilder()
            .sealedTimes(SealedTimes.of(Map.of(1L, 900L, 2L, 2000L)))
            .build();
    ShardRecord b =
        writer("s", 2, 1, 1500).toBuilder().sealedTimes(SealedTimes.of(Map.of(1L, 1000L))).build();
    ShardRecord r = fold(a, b);
    assertThat(r.sealedTimes().asMap())
        .containsExactly(Map.entry(1L, 900L), Map.entry(2L, 1500L), Map.entry(3L, 3000L));

    SealedTimes.Builder many = new SealedTimes.Builder();
    for (long g = 200; g > 0; g--) {
      many.put(g, g * 10);
    }
    ShardRecord capped =
        fold(writer("s", 500, 1, 5000).toBuilder().sealedTimes(many.build()).build());
    assertThat(capped.sealedTimes().size()).isEqualTo(64);
    assertThat(capped.sealedTimes().generation(0)).isEqualTo(138);
    assertThat(capped.sealedTimes().time(0)).isEqualTo(1380);
    assertThat(capped.sealedTimes().generation(62)).isEqualTo(200);
    assertThat(capped.sealedTimes().generation(63)).isEqualTo(500);
  }

  @Test
  void shouldRePruneARecordWrittenUnderTheOldRuleOnItsNextJoin() {
    // g1..g100 flushed under the old rule ("the lowest 63 plus the highest"): g1..g63 and g100
    SealedTimes.Builder old = new SealedTimes.Builder();
    for (long g = 1; g <= 63; g++) {
      old.put(g, g * 1000);
    }
    old.put(100, 100_000);
    ShardRecord stored =
        executor("s", 100, 90, 1, 0).toBuilder()
            .source(Source.WRITER)
            .flushedAtMs(100_000)
            .sealedTimes(old.build())
            .build();
    assertThat(ShardView.of(stored).oldestPendingBound()).isEqualTo(Bound.UPPER);

    ShardRecord joined = Join.join(stored, writer("s", 101, 1, 101_000));

    // the rule keeps the 64 highest of what both sides know above merged 90: g100, g101
    assertThat(joined.sealedTimes().asMap())
        .containsExactly(entry(100L, 100_000L), entry(101L, 101_000L));
    assertThat(joined.sealedThrough()).isEqualTo(101);
    assertThat(joined.mergedThrough()).hasValue(90);
  }

  @Test
  void shouldCutARecordKeepingMergedFlushTimesEvenWhenTheJoinAddsNothing() {
    // written before flush times at or below merged were cut: the 64 highest of g1..g100, merged 90
    SealedTimes.Builder old = new SealedTimes.Builder();
    for (long g = 37; g <= 100; g++) {
      old.put(g, g * 1000);
    }
    ShardRecord stored =
        executor("s", 100, 90, 1, 0).toBuilder()
            .source(Source.WRITER)
            .flushedAtMs(100_000)
            .sealedTimes(old.build())
            .build();

    // a duplicate of what the record holds: the join is not a no-op, it cuts g37..g90
    ShardRecord joined = Join.join(stored, writer("s", 100, 1, 100_000));

    assertThat(joined).isNotSameAs(stored);
    assertThat(joined.sealedTimes().size()).isEqualTo(10);
    assertThat(joined.sealedTimes().generation(0)).isEqualTo(91);
    assertThat(ShardView.of(joined)).isEqualTo(ShardView.of(stored));
    assertThat(Join.join(joined, writer("s", 100, 1, 100_000))).isSameAs(joined);
  }

  @Test
  void shouldNotNoteOwnTimeForExecutorsOrGenerationZero() {
    assertThat(fold(executor("s", 7, 1, 1, 99)).sealedTimes().isEmpty()).isTrue();
    assertThat(fold(writer("s", 0, 1, 99)).sealedTimes().isEmpty()).isTrue();
    assertThat(fold(scan("s", 7, 1, 1, 99)).sealedTimes().asMap()).containsEntry(7L, 99L);
  }

  @Test
  void shouldRefuseToJoinDifferentShards() {
    assertThatThrownBy(() -> Join.join(writer("a", 1, 1, 1), writer("b", 1, 1, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shard b into shard a");
  }

  @Test
  void shouldReportPendingWithoutAgeWhenNoTimeIsKnown() {
    ShardView v = ShardView.of(fold(executor("s", 9, 3, 1, 1)));
    assertThat(v.pendingGenerations()).isEqualTo(6);
    assertThat(v.oldestPendingMs()).isEmpty();
    assertThat(v.oldestPendingBound()).isNull();
  }

  @Test
  void shouldSumTableBytesOnlyOverShardsWithPendingGenerations() {
    ShardRecord pending = writer("s1", 5, 1, 100).toBuilder().sealedBytesThrough(50).build();
    ShardRecord done =
        writer("s2", 5, 1, 200).toBuilder().mergedThrough(5).sealedBytesThrough(70).build();
    ShardRecord upper = fold(writer("s3", 9, 1, 50), executor("s3", 9, 7, 1, 60));
    TableView t = TableView.of(java.util.List.of(fold(pending), fold(done), upper));
    assertThat(t.pendingGenerations()).isEqualTo(5 + 2);
    assertThat(t.pendingBytes()).isEqualTo(50);
    assertThat(t.oldestPendingMs()).hasValue(50);
    assertThat(t.oldestPendingExactMs()).isEmpty();
    assertThat(t.shards()).isEqualTo(3);
  }
}
