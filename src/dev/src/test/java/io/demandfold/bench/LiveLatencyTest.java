package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveLatencyTest {
  private static final long MS = 1_000_000;

  private static ShardRecord flush(String shard, long sealed) {
    return Events.writer(shard, sealed, 1, 1000 + sealed);
  }

  @Test
  void shouldTimeEachEventUntilAWatchedValueHoldsItAndCountTheRestApart() {
    ShardRecord a1 = flush("a", 1);
    LiveLatency l = new LiveLatency(Map.of("t/a", Events.fold(a1))); // as etcd holds it
    l.sent("t/a", a1, 0, true); // etcd holds it already: changes nothing
    l.sent("t/a", flush("a", 2), 10 * MS, true);
    l.sent("t/a", flush("a", 3), 20 * MS, true);
    l.sent("t/b", flush("b", 1), 30 * MS, true);
    assertThat(l.drained()).isFalse();
    assertThat(l.waiting()).containsExactlyInAnyOrder("t/a", "t/b");

    // a value holding the first two of a's events: both seen at once, the third not yet
    l.heard("t/a", Events.fold(a1, flush("a", 2)), 50 * MS);
    l.heard("t/c", flush("c", 9), 50 * MS); // not sampled
    l.heard("t/a", Events.fold(a1, flush("a", 2), flush("a", 3)), 120 * MS);
    assertThat(l.waiting()).containsExactly("t/b");

    LiveLatency.Result r = l.result(key -> null, 1030 * MS);
    assertThat(r.timed()).isEqualTo(3);
    assertThat(r.noops()).isEqualTo(1);
    assertThat(r.heard()).isEqualTo(2);
    assertThat(r.held()).isZero();
    assertThat(r.censored()).as("b's event, counted at the end of the wait").isEqualTo(1);
    // 40, 100 and (censored) 1,000 ms
    assertThat(r.p50()).isEqualTo(100);
    assertThat(r.p99()).isEqualTo(1000);
    assertThat(r.max()).isEqualTo(1000);
  }

  @Test
  void shouldStopAtTheFirstEventAValueLacksAndCountAnEventEtcdHoldsUnwatchedAsHeld() {
    LiveLatency l = new LiveLatency(new HashMap<>());
    ShardRecord x1 = flush("x", 1);
    ShardRecord x2 = flush("x", 2);
    l.sent("t/x", x1, 0, true);
    l.sent("t/x", x2, 5 * MS, true);
    // a value that holds the second event and not the first (another epoch's) releases nothing
    ShardRecord other = Events.writer("x", 9, 2, 5000);
    assertThat(Join.join(other, x1)).isNotSameAs(other);
    l.heard("t/x", other, 7 * MS);
    assertThat(l.drained()).isFalse();

    LiveLatency.Result r = l.result(key -> Events.fold(x1, x2), 100 * MS);
    assertThat(r.heard()).isZero();
    assertThat(r.held()).isEqualTo(2);
    assertThat(r.censored()).isZero();
    assertThat(r.p99()).as("nothing timed").isNaN();
  }

  @Test
  void shouldFoldTheWarmUpsEventsWithoutTimingThem() {
    LiveLatency l = new LiveLatency(new HashMap<>());
    ShardRecord y1 = flush("y", 1);
    l.sent("t/y", y1, 0, false);
    assertThat(l.drained()).as("nothing to wait for").isTrue();
    l.sent("t/y", y1, 5 * MS, true); // the fold already holds it

    LiveLatency.Result r = l.result(key -> null, 10 * MS);
    assertThat(r.timed()).isZero();
    assertThat(r.noops()).isEqualTo(1);
    assertThat(r.censored()).isZero();
  }
}
