package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableShard;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableExpectationsTest {
  private static final long T0 = 1_764_400_000_000L;

  private static Map<String, ShardRecord> folded(ShardRecord... records) {
    Map<String, ShardRecord> m = new HashMap<>();
    for (ShardRecord r : records) {
      m.put(Keys.shardKey("orders", r.shard()), r);
    }
    return m;
  }

  @Test
  void shouldTimeAFlushAndHoldItInEveryLaterEntryOfItsShardOnly() {
    ShardRecord s1 = Events.writer("s1", 3, 1, T0 + 3000);
    ShardRecord s2 = Events.writer("s2", 2, 1, T0 + 2000);
    TableExpectations x = new TableExpectations(folded(s1, s2));
    ShardRecord flushed = Join.join(s1, Events.writer("s1", 4, 1, T0 + 4000));

    TableShard expected = x.next("orders", "s1", flushed);

    assertThat(expected).isEqualTo(TableShard.of(flushed));
    assertThat(TableExpectations.holds(TableShard.of(flushed), expected)).isTrue();
    ShardRecord later = Join.join(flushed, Events.writer("s1", 5, 1, T0 + 5000));
    assertThat(TableExpectations.holds(TableShard.of(later), expected)).isTrue();
    assertThat(TableExpectations.holds(TableShard.of(s1), expected))
        .as("the entry before the flush")
        .isFalse();
    assertThat(TableExpectations.holds(TableShard.of(s2), expected))
        .as("another shard's entry")
        .isFalse();
    assertThat(TableExpectations.holds(null, expected)).as("no entry of the shard").isFalse();
  }

  @Test
  void shouldHoldAMergeOnlyInEntriesPastItThoughTheyHaveFewerPendingGenerations() {
    ShardRecord s1 = Events.writer("s1", 4, 1, T0 + 4000);
    TableExpectations x = new TableExpectations(folded(s1));
    ShardRecord merged = Join.join(s1, Events.executor("s1", 4, 3, 1, T0 + 5000));

    TableShard expected = x.next("orders", "s1", merged);

    assertThat(expected).isNotNull();
    assertThat(expected.view().pendingGenerations())
        .isLessThan(TableShard.of(s1).view().pendingGenerations());
    assertThat(TableExpectations.holds(TableShard.of(s1), expected))
        .as("more pending generations, but before the merge")
        .isFalse();
    assertThat(TableExpectations.holds(TableShard.of(merged), expected)).isTrue();
  }

  @Test
  void shouldNotTimeAnEventThatChangesItsShardButNotItsTablesView() {
    ShardRecord s1 =
        Events.fold(Events.writer("s1", 3, 1, T0 + 3000), Events.writer("s1", 5, 1, T0 + 5000));
    TableExpectations x = new TableExpectations(folded(s1));
    // the flush time of generation 4 arrives late: kept, but the oldest pending stays generation 3
    ShardRecord late = Join.join(s1, Events.writer("s1", 4, 1, T0 + 4000));
    assertThat(late).isNotSameAs(s1);
    assertThat(TableShard.of(late)).isNotEqualTo(TableShard.of(s1));
    assertThat(TableShard.of(late).view()).isEqualTo(TableShard.of(s1).view());

    assertThat(x.next("orders", "s1", late)).isNull();
    // and the next event is compared with the view as it stands after that one
    ShardRecord flushed = Join.join(late, Events.writer("s1", 6, 1, T0 + 6000));
    assertThat(x.next("orders", "s1", flushed)).isEqualTo(TableShard.of(flushed));
  }

  @Test
  void shouldTimeTheFirstEventOfANewTarget() {
    TableExpectations x = new TableExpectations(folded());
    ShardRecord first = Events.writer("s1", 1, 1, T0 + 1000);
    assertThat(x.next("new", "s1", first)).isEqualTo(TableShard.of(first));
  }
}
