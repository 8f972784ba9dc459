package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.stream.Outbox.Dirty;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox and the drain's bookkeeping with a recording batch function in place of etcd: how many
 * calls are out, how a failed call backs off, when keys become clean, and which keys a tick hands
 * on.
 */
class MirrorDrainTest {
  private final List<List<String>> calls = new ArrayList<>();
  private final List<List<CompletableFuture<MirrorOutcome>>> outcomes = new ArrayList<>();
  private KeyValueStore<String, Long> store;
  private Outbox<String> outbox;

  @BeforeEach
  void setUp() {
    store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("outbox"), Serdes.String(), Serdes.Long())
            .withLoggingDisabled()
            .build();
    MockProcessorContext<String, String> context = new MockProcessorContext<>();
    store.init(context.getStateStoreContext(), store);
    outbox = new Outbox<>(store, true);
  }

  private MirrorDrain<String> drain(int concurrency, int batchKeys) {
    return new MirrorDrain<>(
        "test",
        outbox,
        concurrency,
        batchKeys,
        keys -> {
          List<CompletableFuture<MirrorOutcome>> out = new ArrayList<>();
          keys.forEach(k -> out.add(new CompletableFuture<>()));
          calls.add(keys.stream().map(d -> d.key).toList());
          outcomes.add(out);
          return out;
        });
  }

  /** Marks k0..k(n-1) dirty at 0 ms and emits them. */
  private void markDirty(int keys) {
    for (int i = 0; i < keys; i++) {
      outbox.mark("k" + i, "v" + i, 0);
    }
    outbox.takeToEmit(Integer.MAX_VALUE, 0).forEach(outbox::emitted);
  }

  private void start(MirrorDrain<String> drain, long now) {
    drain.start(outbox.takeToMirror(drain.freeKeys(now), now));
  }

  private void complete(int call, MirrorResult result) {
    outcomes.get(call).forEach(f -> f.complete(new MirrorOutcome(result, 0, false, null)));
  }

  @Test
  void shouldBoundTheCallsInFlightNotTheKeys() {
    markDirty(10);
    MirrorDrain<String> drain = drain(2, 3);

    start(drain, 0);
    assertThat(calls).containsExactly(List.of("k0", "k1", "k2"), List.of("k3", "k4", "k5"));

    outcomes.get(0).get(0).complete(new MirrorOutcome(MirrorResult.WRITTEN, 0, false, null));
    drain.applyCompletions(0);
    start(drain, 0);
    assertThat(calls).as("one key of a call back is not a free call").hasSize(2);

    complete(0, MirrorResult.WRITTEN);
    drain.applyCompletions(0);
    start(drain, 0);
    assertThat(calls).hasSize(3);
    assertThat(calls.get(2)).containsExactly("k6", "k7", "k8");
    assertThat(outbox.size()).as("k0..k2 are clean").isEqualTo(7);
  }

  @Test
  void shouldBackOffOnceForACallWhoseKeysAllFailed() {
    markDirty(3);
    MirrorDrain<String> drain = drain(1, 3);
    start(drain, 0);

    complete(0, MirrorResult.FAILED);
    drain.applyCompletions(0);

    assertThat(drain.freeKeys(99)).as("backing off after one failed call").isZero();
    start(drain, 99);
    assertThat(calls).hasSize(1);
    start(drain, 100);
    assertThat(calls).as("100 ms later: the first back-off step").hasSize(2);
    assertThat(calls.get(1)).containsExactly("k0", "k1", "k2");
    assertThat(outbox.size()).as("failed keys stay dirty").isEqualTo(3);
  }

  @Test
  void shouldKeepAKeyThatChangedDuringItsCallDirtyFromThatChangeOn() {
    markDirty(1);
    MirrorDrain<String> drain = drain(1, 1);
    start(drain, 0);
    outbox.mark("k0", "newer", 40);
    complete(0, MirrorResult.WRITTEN);
    drain.applyCompletions(50);

    assertThat(outbox.size()).as("the newer value is not in etcd yet").isEqualTo(1);
    assertThat(outbox.takeToMirror(10, 39)).as("not older than its change at 40 ms").isEmpty();
    List<Dirty<String>> again = outbox.takeToMirror(10, 40);
    assertThat(again).extracting(d -> d.value).containsExactly("newer");
  }

  @Test
  void shouldHandOnOnlyKeysDirtyLongEnoughOldestFirst() {
    outbox.mark("a", "1", 100);
    outbox.mark("b", "1", 200);
    outbox.mark("c", "1", 300);
    outbox.mark("a", "2", 350);

    assertThat(outbox.takeToEmit(10, 250)).extracting(d -> d.key).containsExactly("a", "b");
    assertThat(outbox.takeToMirror(10, 250)).extracting(d -> d.key).containsExactly("a", "b");
    assertThat(outbox.takeToEmit(10, 1000)).extracting(d -> d.key).containsExactly("c");
  }

  @Test
  void shouldSettleAKeyOnlyOnceEmittedAndInEtcdAndPersistOnlyDirtyKeys() {
    outbox.mark("a", "1", 0);
    assertThat(store.get("a")).isZero();
    MirrorDrain<String> drain = drain(1, 1);
    start(drain, 0);
    complete(0, MirrorResult.WRITTEN);
    drain.applyCompletions(0);
    assertThat(outbox.size()).as("in etcd, not yet emitted").isEqualTo(1);

    outbox.takeToEmit(10, 0).forEach(outbox::emitted);
    assertThat(outbox.size()).isZero();
    assertThat(store.get("a")).isNull();
  }

  @Test
  void shouldHandOnEveryKeyDirtyAtTheLastCommitAfterARestore() {
    markDirty(2);
    Outbox<String> restored = new Outbox<>(store, true);
    List<Dirty<String>> emitted = restored.takeToEmit(10, Long.MAX_VALUE);
    assertThat(emitted).extracting(d -> d.key).containsExactly("k0", "k1");
    assertThat(emitted).extracting(d -> d.value).containsOnlyNulls();
    assertThat(restored.takeToMirror(10, Long.MAX_VALUE)).hasSize(2);
  }
}
