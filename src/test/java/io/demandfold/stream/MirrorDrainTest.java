package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
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
 * The drain's bookkeeping with a recording batch function in place of etcd: how many calls are out,
 * how a failed call backs off, when keys become clean.
 */
class MirrorDrainTest {
  private final List<List<String>> calls = new ArrayList<>();
  private final List<List<CompletableFuture<MirrorOutcome>>> outcomes = new ArrayList<>();
  private Outbox outbox;

  @BeforeEach
  void setUp() {
    KeyValueStore<String, Long> store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("outbox"), Serdes.String(), Serdes.Long())
            .withLoggingDisabled()
            .build();
    MockProcessorContext<String, String> context = new MockProcessorContext<>();
    store.init(context.getStateStoreContext(), store);
    outbox = new Outbox(store, true);
  }

  private MirrorDrain drain(int concurrency, int batchKeys) {
    return new MirrorDrain(
        "test",
        outbox,
        concurrency,
        batchKeys,
        keys -> {
          List<CompletableFuture<MirrorOutcome>> out = new ArrayList<>();
          keys.forEach(k -> out.add(new CompletableFuture<>()));
          calls.add(keys);
          outcomes.add(out);
          return out;
        });
  }

  private void markDirty(int keys) {
    for (int i = 0; i < keys; i++) {
      outbox.mark("k" + i, 0);
    }
    outbox.emit(k -> {});
  }

  private void complete(int call, MirrorResult result) {
    outcomes.get(call).forEach(f -> f.complete(new MirrorOutcome(result, 0, false, null)));
  }

  @Test
  void shouldBoundTheCallsInFlightNotTheKeys() {
    markDirty(10);
    MirrorDrain drain = drain(2, 3);

    assertThat(drain.startCalls(0)).as("keys left waiting").isFalse();
    assertThat(calls).containsExactly(List.of("k0", "k1", "k2"), List.of("k3", "k4", "k5"));

    outcomes.get(0).get(0).complete(new MirrorOutcome(MirrorResult.WRITTEN, 0, false, null));
    drain.applyCompletions(0);
    drain.startCalls(0);
    assertThat(calls).as("one key of a call back is not a free call").hasSize(2);

    complete(0, MirrorResult.WRITTEN);
    drain.applyCompletions(0);
    drain.startCalls(0);
    assertThat(calls).hasSize(3);
    assertThat(calls.get(2)).containsExactly("k6", "k7", "k8");
    assertThat(outbox.size()).as("k0..k2 are clean").isEqualTo(7);
  }

  @Test
  void shouldBackOffOnceForACallWhoseKeysAllFailed() {
    markDirty(3);
    MirrorDrain drain = drain(1, 3);
    drain.startCalls(0);

    complete(0, MirrorResult.FAILED);
    drain.applyCompletions(0);

    assertThat(drain.startCalls(99)).isFalse();
    assertThat(calls).as("backing off after one failed call").hasSize(1);
    drain.startCalls(100);
    assertThat(calls).as("100 ms later: the first back-off step").hasSize(2);
    assertThat(calls.get(1)).containsExactly("k0", "k1", "k2");
    assertThat(outbox.size()).as("failed keys stay dirty").isEqualTo(3);
  }
}
