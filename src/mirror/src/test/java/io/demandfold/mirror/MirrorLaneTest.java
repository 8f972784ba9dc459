package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.concurrency.limits.limit.FixedLimit;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lane's keys after a write ends, called as the mirror's thread and jetcd's completions call it:
 * a key etcd refused for itself backs off alone (jitter drawn at its lowest here: half the
 * ceiling), keeps its place for newer values, and is then taken in a call of its own; a key whose
 * write failed for an error of etcd waits again at once; nothing is lost when the lane closes.
 */
class MirrorLaneTest {
  private final MirrorMetrics metrics = MirrorMetrics.detached();

  /** Only its budget, its backoff and its gauge are used: the lane is not handed to its thread. */
  private final LiveMirror mirror =
      new LiveMirror(
          null,
          metrics,
          FixedLimit.of(1),
          8,
          1 << 20,
          0,
          "lane-test",
          () -> 0,
          new KeyBackoff(() -> 0.0));

  private final MirrorLane<String> lane =
      new MirrorLane<>(
          "test",
          RecordKind.SHARD,
          8,
          (keys, values) -> {
            throw new AssertionError("the lane writes nothing here");
          },
          mirror);

  @AfterEach
  void close() {
    mirror.close();
  }

  private static List<String> keys(List<MirrorLane.Entry<String>> batch) {
    return batch.stream().map(e -> e.key).toList();
  }

  private MirrorLane.Entry<String> takeOne(String key, long nowMs) {
    List<MirrorLane.Entry<String>> batch = lane.take(1, Long.MAX_VALUE, nowMs);
    assertThat(keys(batch)).containsExactly(key);
    return batch.get(0);
  }

  @Test
  void shouldHoldARefusedKeyBackUntilItsBackoffEndsWhileTheOthersAreTaken() {
    lane.offer("bad", "b1", 1, 100, 0);
    lane.offer("a", "a1", 2, 100, 0);
    MirrorLane.Entry<String> bad = takeOne("bad", 1_000);

    assertThat(lane.ended(bad, MirrorLane.Ending.REFUSED, 1_000, 1_000)).isEqualTo(1);
    assertThat(lane.backingOff()).isEqualTo(1);
    assertThat(metrics.keysBackingOff()).isEqualTo(1);
    lane.offer("c", "c1", 3, 100, 1_001);
    // backing off until 1,050 (100 ms, jitter at its lowest): the others are taken
    assertThat(keys(lane.take(8, Long.MAX_VALUE, 1_049))).containsExactly("a", "c");
    assertThat(lane.take(8, Long.MAX_VALUE, 1_049)).isEmpty();
    assertThat(lane.oldestReadyMs(1_049)).isEqualTo(Long.MAX_VALUE);

    assertThat(lane.oldestReadyMs(1_050)).as("its place in line kept").isEqualTo(0);
    assertThat(metrics.keysBackingOff()).isZero();
    assertThat(takeOne("bad", 1_050).value).isEqualTo("b1");
  }

  @Test
  void shouldDoubleTheBackoffWithEachRefusalInARowAndWriteTheNewestValueOfferedMeanwhile() {
    lane.offer("bad", "b1", 1, 100, 0);
    MirrorLane.Entry<String> bad = takeOne("bad", 0);
    lane.offer("bad", "b2", 2, 100, 10); // while in flight
    assertThat(lane.ended(bad, MirrorLane.Ending.REFUSED, 0, 0)).isEqualTo(1);
    lane.offer("bad", "b3", 3, 100, 20); // while backing off: replaces b2 in place
    assertThat(lane.size()).isEqualTo(1);
    assertThat(mirror.heldBytes()).as("one value held").isEqualTo(100);

    bad = takeOne("bad", 50);
    assertThat(bad.value).isEqualTo("b3");
    assertThat(lane.ended(bad, MirrorLane.Ending.REFUSED, 50, 50)).isEqualTo(2);
    assertThat(lane.take(8, Long.MAX_VALUE, 149)).as("200 ms now, jitter at its lowest").isEmpty();
    bad = takeOne("bad", 150);
    assertThat(lane.ended(bad, MirrorLane.Ending.REFUSED, 150, 150)).isEqualTo(3);
    assertThat(lane.take(8, Long.MAX_VALUE, 349)).isEmpty();

    bad = takeOne("bad", 350);
    lane.ended(bad, MirrorLane.Ending.SETTLED, 350, 350);
    List<MirrorLane.Ack> acks = new java.util.ArrayList<>();
    lane.drainAcks(acks::add);
    assertThat(acks).extracting(MirrorLane.Ack::version).containsExactly(3L);
    assertThat(lane.size()).isZero();
    assertThat(mirror.heldBytes()).isZero();
  }

  @Test
  void shouldWriteAKeyRefusedBeforeInACallOfItsOwn() {
    lane.offer("bad", "b1", 1, 100, 0);
    lane.ended(takeOne("bad", 0), MirrorLane.Ending.REFUSED, 0, 0);
    lane.offer("x", "x1", 2, 100, 1);
    lane.offer("y", "y1", 3, 100, 2);
    // due again at 50, after x and y were offered: in line behind them, before z
    assertThat(lane.oldestReadyMs(60)).isEqualTo(1);
    lane.offer("z", "z1", 4, 100, 3);

    assertThat(keys(lane.take(8, Long.MAX_VALUE, 100))).containsExactly("x", "y", "z");
    assertThat(keys(lane.take(8, Long.MAX_VALUE, 100))).as("alone").containsExactly("bad");
  }

  @Test
  void shouldRetryAKeyAtOnceWhenEtcdFailedAndKeepWhetherItWasRefusedBefore() {
    lane.offer("a", "a1", 1, 100, 0);
    lane.ended(takeOne("a", 0), MirrorLane.Ending.FAILED, 0, 0);
    assertThat(lane.backingOff()).isZero();
    MirrorLane.Entry<String> a = takeOne("a", 0);
    assertThat(lane.ended(a, MirrorLane.Ending.REFUSED, 0, 0)).isEqualTo(1);
    a = takeOne("a", 50);
    lane.ended(a, MirrorLane.Ending.FAILED, 50, 50);
    lane.offer("b", "b1", 2, 100, 60);

    assertThat(keys(lane.take(8, Long.MAX_VALUE, 60))).as("still alone").containsExactly("a");
    assertThat(keys(lane.take(8, Long.MAX_VALUE, 60))).containsExactly("b");
  }

  @Test
  void shouldReleaseTheBytesAndTheGaugeOfKeysBackingOffWhenTheLaneCloses() {
    lane.offer("bad", "b1", 1, 100, 0);
    lane.offer("a", "a1", 2, 100, 0);
    lane.ended(takeOne("bad", 0), MirrorLane.Ending.REFUSED, 0, 0);
    assertThat(metrics.keysBackingOff()).isEqualTo(1);

    mirror.release(lane.close());
    assertThat(mirror.heldBytes()).isZero();
    assertThat(metrics.keysBackingOff()).isZero();
    assertThat(lane.size()).isZero();
  }
}
