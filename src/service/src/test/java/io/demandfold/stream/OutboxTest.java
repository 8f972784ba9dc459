package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.concurrency.limits.limit.FixedLimit;
import io.demandfold.mirror.LiveMirror;
import io.demandfold.mirror.MirrorLane;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.RecordKind;
import io.demandfold.stream.Outbox.Dirty;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox's bookkeeping: a key leaves the changelogged store only once its latest change is
 * emitted and acknowledged by etcd; acknowledgements of older versions, or from before the key was
 * last settled, change nothing; what the mirror's budget refuses is handed on later; an outbox
 * without a mirror leaves one marker instead of its keys; after etcd lost writes every key is
 * written again, and only a write handed on after that settles it.
 */
class OutboxTest {
  private KeyValueStore<String, Long> store;
  private LiveMirror mirror;
  private MirrorLane<String> lane;

  @BeforeEach
  void setUp() {
    store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("outbox"), Serdes.String(), Serdes.Long())
            .withLoggingDisabled()
            .build();
    MockProcessorContext<String, String> context = new MockProcessorContext<>();
    store.init(context.getStateStoreContext(), store);
    // calls never end: what the lane hands on stays in flight and holds its bytes
    mirror =
        new LiveMirror(null, MirrorMetrics.detached(), FixedLimit.of(1), 1, 300, 0, "outbox-test");
    lane =
        mirror.lane(
            "test",
            RecordKind.SHARD,
            (keys, values) -> {
              List<CompletableFuture<MirrorOutcome>> out = new ArrayList<>();
              keys.forEach(k -> out.add(new CompletableFuture<>()));
              return out;
            });
  }

  @AfterEach
  void tearDown() {
    mirror.close();
  }

  private List<String> stored() {
    List<String> out = new ArrayList<>();
    try (KeyValueIterator<String, Long> it = store.all()) {
      it.forEachRemaining(kv -> out.add(kv.key));
    }
    return out;
  }

  private static MirrorLane.Ack ack(Dirty d, long version, long takenAtMs) {
    return new MirrorLane.Ack(d.key, version, true, takenAtMs);
  }

  @Test
  void shouldSettleAKeyOnceItsLatestChangeIsEmittedAndInEtcd() {
    Outbox outbox = new Outbox(store, true);
    Dirty d = outbox.mark("k", 100);
    assertThat(outbox.hand(d, lane, "v1", 10, 100)).isTrue();
    long first = d.version;
    outbox.mark("k", 200);
    assertThat(outbox.waitingForEtcd()).containsExactly(1, 100);

    outbox.acked(ack(d, first, 150)); // the older version: still waiting, since the take
    assertThat(outbox.waitingForEtcd()).containsExactly(1, 150);
    outbox.takeToEmit(10, 1000).forEach(outbox::emitted);
    assertThat(stored()).containsExactly("k");

    outbox.acked(ack(d, d.version, 250));
    assertThat(outbox.waitingForEtcd()).containsExactly(0, Long.MAX_VALUE);
    assertThat(stored()).isEmpty();
    assertThat(outbox.size()).isZero();
  }

  @Test
  void shouldCountOnlyWhatWaitsForEtcdNotWhatWaitsToBeEmitted() {
    Outbox outbox = new Outbox(store, true);
    Dirty d = outbox.mark("k", 100);
    outbox.hand(d, lane, "v", 10, 100);
    outbox.acked(ack(d, d.version, 120));
    // in etcd, not yet emitted: still dirty in the store, but nothing waits for etcd
    assertThat(stored()).containsExactly("k");
    assertThat(outbox.size()).isEqualTo(1);
    assertThat(outbox.waitingForEtcd()).containsExactly(0, Long.MAX_VALUE);
  }

  @Test
  void shouldIgnoreAnAcknowledgementFromBeforeTheKeyWasLastSettled() {
    Outbox outbox = new Outbox(store, true);
    Dirty old = outbox.mark("k", 100);
    long oldVersion = old.version;
    outbox.acked(ack(old, oldVersion, 100));
    outbox.takeToEmit(10, 1000).forEach(outbox::emitted);
    assertThat(outbox.get("k")).isNull();

    Dirty again = outbox.mark("k", 300);
    outbox.acked(ack(again, oldVersion, 100)); // late and stale
    assertThat(outbox.get("k")).isSameAs(again);
    assertThat(again.inEtcd()).isFalse();
  }

  @Test
  void shouldHandOnWhatTheBudgetRefusedOldestFirst() {
    Outbox outbox = new Outbox(store, true);
    Dirty a = outbox.mark("a", 100);
    Dirty b = outbox.mark("b", 200);
    Dirty c = outbox.mark("c", 300);
    assertThat(outbox.hand(a, lane, "a", 200, 100)).isTrue();
    assertThat(outbox.hand(b, lane, "b", 200, 200)).isFalse(); // 300 bytes of budget

    List<String> asked = new ArrayList<>();
    assertThat(outbox.handUnhanded(lane, 10, 1000, 400, k -> k, v -> 200)).isZero();
    mirror.remove(lane); // frees the budget; a closed lane refuses everything
    assertThat(
            outbox.handUnhanded(
                lane,
                10,
                1000,
                400,
                k -> {
                  asked.add(k);
                  return k;
                },
                v -> 1))
        .isZero();
    assertThat(asked).containsExactly("b"); // oldest first, stopping at the first refusal
    assertThat(c.handedVersion).isLessThan(c.version);
  }

  @Test
  void shouldHoldEveryKeyDirtyAtTheLastCommitAfterARestoreAndReleaseItInKeyOrder() {
    Outbox before = new Outbox(store, true);
    before.mark("b", 100);
    before.mark("a", 200);

    Outbox after = new Outbox(store, true);
    assertThat(after.size()).isEqualTo(2);
    assertThat(after.held()).as("kept in the store, not in memory").isEqualTo(2);
    assertThat(after.waitingForEtcd()).containsExactly(2, 100);
    assertThat(after.takeToEmit(10, 1000)).isEmpty();
    assertThat(after.releaseHeld(10, 1000)).extracting(d -> d.key).containsExactly("a", "b");
    assertThat(after.held()).isZero();
    List<String> handed = new ArrayList<>();
    after.handUnhanded(
        lane,
        10,
        1000,
        1000,
        k -> {
          handed.add(k);
          return k;
        },
        v -> 1);
    assertThat(handed).containsExactly("a", "b");
    assertThat(after.waitingForEtcd()).containsExactly(2, 1000);
  }

  /**
   * A catch-up holds each key it changes in the store alone, however often it changes; the keys go
   * in passes in key order, a key held again behind a pass waits for the next, and one changed
   * while live leaves the hold for the live path.
   */
  @Test
  void shouldHoldKeysUntilReleasedInPassesInKeyOrder() {
    Outbox outbox = new Outbox(store, true);
    for (String k : List.of("d", "b", "a", "c", "b", "d")) {
      assertThat(outbox.hold(k, 100)).isNull();
    }
    assertThat(outbox.held()).isEqualTo(4);
    assertThat(outbox.get("a")).as("not in memory").isNull();
    assertThat(outbox.hasUnhanded()).isFalse();
    assertThat(outbox.changedSinceEmit()).isFalse();
    assertThat(stored()).containsExactly("a", "b", "c", "d");
    assertThat(outbox.heldTooLong(150, 100)).isFalse();
    assertThat(outbox.heldTooLong(200, 100)).isTrue();
    assertThat(outbox.releaseHeld(-3, 250)).as("no room: a lane fuller than asked").isEmpty();

    List<Dirty> first = outbox.releaseHeld(2, 300);
    assertThat(first).extracting(d -> d.key).containsExactly("a", "b");
    assertThat(outbox.heldTooLong(300, 1_000_000)).as("a pass has begun").isTrue();
    assertThat(outbox.hand(first.get(0), lane, "va", 10, 300)).isTrue();
    assertThat(outbox.hold("a", 310)).as("its write is out: marked in memory").isNotNull();
    assertThat(outbox.get("a").version).isGreaterThan(first.get(0).handedVersion);
    assertThat(outbox.hold("b", 310)).as("nothing of it out: held again").isNull();
    assertThat(outbox.get("b")).isNull();
    outbox.mark("c", 320); // changed while live: leaves the hold
    assertThat(outbox.held()).isEqualTo(2);
    assertThat(outbox.releaseHeld(10, 330)).extracting(d -> d.key).containsExactly("d");
    assertThat(outbox.heldTooLong(330, 1_000_000)).as("the pass ended").isFalse();
    assertThat(outbox.held()).as("b, held behind the pass").isEqualTo(1);
    assertThat(outbox.size()).isEqualTo(4);
    assertThat(outbox.waitingForEtcd()).containsExactly(4, 300);
    assertThat(outbox.releaseHeld(10, 400)).extracting(d -> d.key).containsExactly("b");
  }

  @Test
  void shouldDateKeysHeldBehindAPassFromTheStartOfThePass() {
    Outbox outbox = new Outbox(store, true);
    outbox.hold("a", 100);
    outbox.hold("c", 100);
    assertThat(outbox.releaseHeld(1, 500)).extracting(d -> d.key).containsExactly("a");
    outbox.acked(ack(outbox.get("a"), outbox.get("a").version, 500)); // in etcd: settled
    assertThat(outbox.get("a")).isNull();
    outbox.hold("a", 600); // held again, behind the pass
    assertThat(outbox.releaseHeld(10, 700)).extracting(d -> d.key).containsExactly("c");
    assertThat(outbox.held()).isEqualTo(1);
    assertThat(outbox.waitingForEtcd())
        .as("what the pass left was held after it began")
        .containsExactly(2, 500);
    assertThat(outbox.releaseHeld(10, 800)).extracting(d -> d.key).containsExactly("a");
  }

  @Test
  void shouldSettleAReleasedKeyOnceEmittedAndInEtcd() {
    Outbox outbox = new Outbox(store, true);
    outbox.hold("k", 100);
    Dirty d = outbox.releaseHeld(10, 200).get(0);
    outbox.emitted(d);
    assertThat(outbox.hand(d, lane, "v", 10, 200)).isTrue();
    assertThat(stored()).containsExactly("k");
    outbox.acked(ack(d, d.version, 200));
    assertThat(stored()).isEmpty();
    assertThat(outbox.size()).isZero();
  }

  @Test
  void shouldSettleEmittedKeysWithoutAMirrorAndLeaveAMarkerForTheNextThatMirrors() {
    Outbox without = new Outbox(store, false);
    without.mark("a", 100);
    without.mark("b", 100);
    without.takeToEmit(10, 1000).forEach(without::emitted);
    assertThat(without.size()).isZero();
    assertThat(without.waitingForEtcd()).containsExactly(0, Long.MAX_VALUE);
    assertThat(stored()).containsExactly(Outbox.UNMIRRORED);
    assertThat(new Outbox(store, false).unmirrored()).isFalse(); // nothing to do without a mirror

    Outbox with = new Outbox(store, true);
    assertThat(with.unmirrored()).isTrue();
    KeyValueStore<String, Long> records =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("records"), Serdes.String(), Serdes.Long())
            .withLoggingDisabled()
            .build();
    records.init(new MockProcessorContext<String, String>().getStateStoreContext(), records);
    records.put("a", 1L);
    records.put("b", 2L);
    records.put("c", 3L);
    try (KeyValueIterator<String, Long> all = records.all()) {
      with.markAll(all, 500);
    }
    assertThat(with.unmirrored()).isFalse();
    assertThat(stored()).containsExactly("a", "b", "c");
    assertThat(with.held()).as("held in the store, not in memory").isEqualTo(3);
    assertThat(with.waitingForEtcd()).containsExactly(3, 500);
  }

  @Test
  void shouldWriteEveryKeyAgainAfterEtcdLostWritesWithoutEmittingItAgain() {
    Outbox outbox = new Outbox(store, true);
    Dirty settled = outbox.mark("a", 100);
    outbox.acked(ack(settled, settled.version, 100));
    outbox.takeToEmit(10, 1000).forEach(outbox::emitted);
    Dirty flying = outbox.mark("b", 150);
    outbox.hand(flying, lane, "vb", 10, 150);
    long flyingVersion = flying.version;
    outbox.takeToEmit(10, 1000).forEach(outbox::emitted);
    assertThat(stored()).containsExactly("b");

    KeyValueStore<String, String> records = records("a", "b");
    try (KeyValueIterator<String, String> it = records.all()) {
      outbox.rewriteAll(it, 500);
    }
    assertThat(stored()).as("changelogged until written again").containsExactly("a", "b");
    assertThat(outbox.changedSinceEmit()).as("b is not emitted downstream again").isFalse();
    assertThat(outbox.held()).as("a, clean, is held").isEqualTo(1);
    assertThat(outbox.waitingForEtcd()).containsExactly(2, 150);
    assertThat(outbox.hasUnhanded()).isTrue();

    // the write in flight when etcd lost writes may have gone to the etcd before: not enough
    outbox.acked(ack(flying, flyingVersion, 150));
    assertThat(outbox.get("b")).isNotNull();
    assertThat(outbox.releaseHeld(10, 550)).extracting(d -> d.key).containsExactly("a");
    for (Dirty d : List.of(outbox.get("a"), outbox.get("b"))) {
      outbox.acked(ack(d, d.version, 600));
    }
    assertThat(stored()).isEmpty();
    assertThat(outbox.size()).isZero();
  }

  @Test
  void shouldNotRewriteWithoutAMirrorHere() {
    Outbox outbox = new Outbox(store, false);
    KeyValueStore<String, String> records = records("a");
    try (KeyValueIterator<String, String> it = records.all()) {
      outbox.rewriteAll(it, 500);
    }
    assertThat(outbox.size()).isZero();
    assertThat(stored()).isEmpty();
  }

  @Test
  void shouldRewriteOnlyWhenEtcdWasSeenToLoseWritesSinceTheLastLook() {
    Outbox outbox = new Outbox(store, true);
    KeyValueStore<String, String> records = records("a", "b");
    outbox.etcdRewindsAtStart(2);
    outbox.rewriteAllIfEtcdRewound(2, records::all, 500);
    assertThat(outbox.size()).as("no loss since the start").isZero();

    outbox.rewriteAllIfEtcdRewound(3, records::all, 600);
    assertThat(outbox.size()).as("a loss: every key again").isEqualTo(2);
    for (Dirty d : outbox.releaseHeld(10, 650)) {
      outbox.acked(ack(d, d.version, 700));
    }
    assertThat(outbox.size()).isZero();

    outbox.rewriteAllIfEtcdRewound(3, records::all, 800);
    assertThat(outbox.size()).as("the same loss is written again once").isZero();
  }

  /** An in-memory store of records under {@code keys}, what a task's record store holds. */
  private static KeyValueStore<String, String> records(String... keys) {
    KeyValueStore<String, String> records =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("records"), Serdes.String(), Serdes.String())
            .withLoggingDisabled()
            .build();
    records.init(new MockProcessorContext<String, String>().getStateStoreContext(), records);
    for (String k : keys) {
      records.put(k, "v" + k);
    }
    return records;
  }
}
