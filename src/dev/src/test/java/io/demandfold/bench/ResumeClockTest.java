package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.sim.FleetModel;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResumeClockTest {
  private static final long KILL = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long REVISION = 500;

  private final FleetModel model = new FleetModel(7, 1, 3);

  /** Three successive folds of each of three shards: [shard][0..2], each containing the last. */
  private final ShardRecord[][] folds = new ShardRecord[3][3];

  private final String[] keys = new String[3];

  ResumeClockTest() {
    for (int i = 0; i < 3; i++) {
      ShardRecord r = null;
      for (int g = 0; g < 3; g++) {
        var e = model.flush(i, 1000 + g);
        keys[i] = e.key();
        r = Join.join(r, e.record());
        folds[i][g] = r;
      }
    }
  }

  /** Shards 0 and 1 on the killed partitions, shard 2 on another. */
  private ResumeClock clock(Map<String, ShardRecord> held) {
    Map<String, ShardRecord> sent = new HashMap<>();
    sent.put(keys[0], folds[0][1]);
    sent.put(keys[1], folds[1][1]);
    sent.put(keys[2], folds[2][1]);
    Set<String> killed = Set.of(keys[0], keys[1]);
    return new ResumeClock(KILL, REVISION, killed::contains, sent, held);
  }

  @Test
  void shouldTimeTheFirstWriteOfAKilledPartitionAndWhenEtcdHoldsWhatWasSentBeforeTheKill() {
    // etcd lacks the last event of shard 0 and all of shard 2; it holds shard 1 in full
    ResumeClock c = clock(Map.of(keys[0], folds[0][0], keys[1], folds[1][1]));
    assertThat(c.pendingKilledAtKill()).isEqualTo(1);
    assertThat(c.pendingOthersAtKill()).isEqualTo(1);

    // a write the killed instance made before it was gone does not count
    c.onPut(keys[0], REVISION, folds[0][2], KILL + 100 * MS);
    assertThat(c.firstWriteMs()).isNaN();
    // the survivors write shard 1 (of a killed partition) first: the first write, not caught up
    c.onPut(keys[1], REVISION + 1, folds[1][2], KILL + 7000 * MS);
    assertThat(c.firstWriteMs()).isEqualTo(7000);
    assertThat(c.killedCaughtUpMs()).isNaN();
    // an older value of shard 0 than what was sent before the kill: still lacking
    c.onPut(keys[0], REVISION + 2, folds[0][0], KILL + 7100 * MS);
    assertThat(c.killedCaughtUpMs()).isNaN();
    assertThat(c.pendingKilled()).isEqualTo(1);
    // a value with more than was sent before the kill
    c.onPut(keys[0], REVISION + 3, folds[0][2], KILL + 7300 * MS);
    assertThat(c.killedCaughtUpMs()).isEqualTo(7300);
    assertThat(c.firstWriteMs()).isEqualTo(7000);
    assertThat(c.complete()).isFalse();

    c.onPut(keys[2], REVISION + 4, folds[2][1], KILL + 150 * MS);
    assertThat(c.othersCaughtUpMs()).isEqualTo(150);
    assertThat(c.complete()).isTrue();
  }

  @Test
  void shouldCountAShardMissingFromEtcdAsLacking() {
    ResumeClock c = clock(Map.of(keys[1], folds[1][2], keys[2], folds[2][1]));
    assertThat(c.pendingKilledAtKill()).isEqualTo(1);
    assertThat(c.pendingOthersAtKill()).isZero();
    assertThat(c.othersCaughtUpMs()).isZero();
    c.onPut(keys[0], REVISION + 1, folds[0][1], KILL + 9000 * MS);
    assertThat(c.killedCaughtUpMs()).isEqualTo(9000);
  }

  @Test
  void shouldBeCaughtUpAtTheKillWhenEtcdLackedNothing() {
    ResumeClock c = clock(Map.of(keys[0], folds[0][1], keys[1], folds[1][2], keys[2], folds[2][2]));
    assertThat(c.killedCaughtUpMs()).isZero();
    assertThat(c.othersCaughtUpMs()).isZero();
    assertThat(c.firstWriteMs()).isNaN();
    assertThat(c.complete()).isFalse();
  }
}
