package io.demandfold.core;

import static io.demandfold.core.Events.executor;
import static io.demandfold.core.Events.fold;
import static io.demandfold.core.Events.scan;
import static io.demandfold.core.Events.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.codec.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Every named case of docs/model.md section 10, with its stated numbers. */
class NamedCasesTest {

  @Test
  void mergedSurvivesEpochChange() {
    ShardRecord r = fold(executor("s", 40, 40, 1, 4000), writer("s", 60, 2, 6000));
    assertThat(r.sealedMark()).isEqualTo(new Mark(60, 2));
    assertThat(r.mergedMark()).isEqualTo(new Mark(40, 1));
    assertThat(ShardView.of(r).pendingGenerations()).isEqualTo(20);
    assertThat(r.writerEpoch()).isEqualTo(2);
    assertThat(r.sealedThrough()).isEqualTo(60);
    assertThat(r.mergedThrough()).hasValue(40);
    assertThat(r.mergedEpoch()).hasValue(1);
    assertThat(new String(JsonCodec.encodeRecord(r), StandardCharsets.UTF_8))
        .contains("\"sealed_through\":60,")
        .contains("\"merged_through\":40,\"merged_epoch\":1,")
        .contains("\"writer_epoch\":2,");
  }

  @Test
  void writerNeverForgetsMerged() {
    ShardRecord r = fold(executor("s", 10, 8, 1, 1000), writer("s", 12, 1, 1200));
    assertThat(ShardView.of(r).pendingGenerations()).isEqualTo(4);
    assertThat(r.mergedThrough()).hasValue(8);
  }

  @Test
  void epochIsATiebreak() {
    ShardRecord r =
        fold(
            executor("s", 50, 40, 2, 5000), writer("s", 60, 55, 1, 6000), writer("s", 60, 3, 6100));
    assertThat(r.sealedMark()).isEqualTo(new Mark(60, 3));
    assertThat(r.mergedMark()).isEqualTo(new Mark(55, 1));
    assertThat(ShardView.of(r).pendingGenerations()).isEqualTo(5);
  }

  @Test
  void newerFlushButMergedKnown() {
    ShardRecord r = fold(executor("s", 100, 40, 1, 10_000), writer("s", 60, 2, 6000));
    assertThat(ShardView.of(r).pendingGenerations()).isEqualTo(60);
  }

  @Test
  void scanRaisesMergedNeverLowersSealed() {
    ShardRecord r = fold(writer("s", 30, 10, 1, 3000), scan("s", 20, 20, 1, 9000));
    assertThat(r.sealedThrough()).isEqualTo(30);
    assertThat(r.mergedThrough()).hasValue(20);
    assertThat(ShardView.of(r).pendingGenerations()).isEqualTo(10);
  }

  @Test
  void ageClock() {
    ShardRecord r = fold(writer("s", 1, 1, 1000), writer("s", 2, 1, 2000), writer("s", 3, 1, 3000));
    ShardView v = ShardView.of(r);
    assertThat(v.oldestPendingMs()).isEqualTo(OptionalLong.of(1000));
    assertThat(v.oldestPendingBound()).isEqualTo(Bound.EXACT);

    ShardView after = ShardView.of(Join.join(r, executor("s", 1, 1, 1, 9000)));
    assertThat(after.oldestPendingMs()).isEqualTo(OptionalLong.of(2000));
    assertThat(after.oldestPendingBound()).isEqualTo(Bound.EXACT);
  }

  @Test
  void executorsNeverSeedTheAgeClock() {
    ShardRecord r = fold(executor("s", 5, 2, 1, 7777));
    assertThat(r.sealedTimes().isEmpty()).isTrue();
    assertThat(ShardView.of(r).oldestPendingMs()).isEmpty();
    assertThat(ShardView.of(r).pendingGenerations()).isEqualTo(3);
  }

  @Test
  void beyondTheCap() {
    List<ShardRecord> events = flushes(128);
    events.add(executor("s", 64, 64, 1, 200_000));

    ShardRecord forward = fold(events.toArray(ShardRecord[]::new));
    assertAge(forward, 64, 65_000, Bound.EXACT);
    assertThat(forward.sealedTimes().generation(0)).isEqualTo(65);
    assertThat(forward.sealedTimes().size()).isEqualTo(Limits.SEALED_TIMES_CAP);

    Collections.reverse(events);
    ShardRecord reverse = fold(events.toArray(ShardRecord[]::new));
    assertAge(reverse, 64, 65_000, Bound.EXACT);
    assertThat(JsonCodec.encodeRecord(reverse)).isEqualTo(JsonCodec.encodeRecord(forward));

    ShardRecord rebuilt = fold(forward);
    assertThat(rebuilt).isEqualTo(forward);
    assertThat(TableView.of(List.of(forward)).oldestPendingExactMs()).hasValue(65_000);
  }

  @Test
  void longLivedShard() {
    List<ShardRecord> events = flushes(100);
    events.add(executor("s", 90, 90, 1, 200_000));
    ShardRecord r = fold(events.toArray(ShardRecord[]::new));
    assertAge(r, 10, 91_000, Bound.EXACT);
    // only the pending generations' times are kept (section 5): g91..g100
    assertThat(r.sealedTimes().size()).isEqualTo(10);
    assertThat(r.sealedTimes().generation(0)).isEqualTo(91);
    assertThat(TableView.of(List.of(r)).oldestPendingExactMs()).hasValue(91_000);

    Collections.reverse(events);
    assertThat(fold(events.toArray(ShardRecord[]::new))).isEqualTo(r);
  }

  /**
   * Section 5's named case: flush times at or below merged are cut, so the record keeps exactly the
   * pending generations' times, in whatever order the 11 events come (the merge first, last or
   * anywhere between, the flushes forward or backward), and the same after a rebuild.
   */
  @Test
  void mergedFlushTimesAreCut() {
    List<ShardRecord> flushes = flushes(10);
    ShardRecord merge = executor("s", 7, 7, 1, 20_000);
    SealedTimes expected = SealedTimes.of(java.util.Map.of(8L, 8000L, 9L, 9000L, 10L, 10_000L));
    ShardRecord first = null;
    for (boolean backward : new boolean[] {false, true}) {
      List<ShardRecord> order = new ArrayList<>(flushes);
      if (backward) {
        Collections.reverse(order);
      }
      for (int at = 0; at <= order.size(); at++) {
        List<ShardRecord> events = new ArrayList<>(order);
        events.add(at, merge);
        ShardRecord r = fold(events.toArray(ShardRecord[]::new));
        assertThat(r.sealedTimes())
            .as("merge at %d, backward %s", at, backward)
            .isEqualTo(expected);
        assertAge(r, 3, 8000, Bound.EXACT);
        if (first == null) {
          first = r;
        }
        assertThat(JsonCodec.encodeRecord(r)).isEqualTo(JsonCodec.encodeRecord(first));
        assertThat(fold(r)).isEqualTo(r);
      }
    }
  }

  @Test
  void backlogBeyondTheCap() {
    List<ShardRecord> events = flushes(200);
    events.add(executor("s", 10, 10, 1, 300_000));
    ShardRecord r = fold(events.toArray(ShardRecord[]::new));
    assertAge(r, 190, 137_000, Bound.UPPER);
    TableView t = TableView.of(List.of(r));
    assertThat(t.oldestPendingExactMs()).isEmpty();
    assertThat(t.oldestPendingMs()).hasValue(137_000);

    Collections.reverse(events);
    assertThat(fold(events.toArray(ShardRecord[]::new))).isEqualTo(r);
  }

  /** A writer flushing g1..gN of shard s at g*1000 ms. */
  private static List<ShardRecord> flushes(int n) {
    List<ShardRecord> events = new ArrayList<>();
    for (int g = 1; g <= n; g++) {
      events.add(writer("s", g, 1, g * 1000L));
    }
    return events;
  }

  private static void assertAge(ShardRecord r, long pending, long oldestMs, Bound bound) {
    ShardView v = ShardView.of(r);
    assertThat(v.pendingGenerations()).isEqualTo(pending);
    assertThat(v.oldestPendingMs()).hasValue(oldestMs);
    assertThat(v.oldestPendingBound()).isEqualTo(bound);
  }

  @Test
  void unknownVersionIsRejectedAndNothingFolded() {
    String json =
        "{\"v\":999,\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":5,"
            + "\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\"}";
    Fold fold = new Fold();
    assertThatThrownBy(() -> fold.add(JsonCodec.decodeEvent(json.getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(UnknownVersionException.class)
        .hasMessage("unknown schema version 999");
    assertThat(fold.targets()).isEmpty();
  }

  @Test
  void legacyVersionIsFoldedAsVersionOne() {
    String json =
        "{\"v\":0,\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":5,"
            + "\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\"}";
    Fold fold = new Fold();
    fold.add(JsonCodec.decodeEvent(json.getBytes(StandardCharsets.UTF_8)));
    ShardRecord stored = fold.shards("t").get("s");
    assertThat(ShardView.of(stored).pendingGenerations()).isEqualTo(5);
    assertThat(new String(JsonCodec.encodeRecord(stored), StandardCharsets.UTF_8))
        .startsWith("{\"v\":1,");
  }
}
