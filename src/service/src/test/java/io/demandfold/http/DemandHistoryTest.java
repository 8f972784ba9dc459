package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DemandHistoryTest {
  private static final long T = 1_764_400_000_000L; // a multiple of 5 s

  private final AtomicLong now = new AtomicLong(T);
  private final FakeStore store = new FakeStore().hold("a", Events.writer("s", 7, 1, T - 1000));
  private final DemandHistory history = new DemandHistory(store, now::get);

  @Test
  void shouldSampleOncePerFiveSecondStepOnMultiplesOfTheStep() {
    now.set(T + 1234);
    history.sample();
    now.set(T + 4999);
    store.hold("a", Events.writer("s", 9, 1, T - 1000));
    history.sample(); // the same step: replaces it
    now.set(T + 5001);
    store.hold("b", Events.writer("s", 3, 1, T).toBuilder().sealedTime(1, T - 2000).build());
    history.sample();
    assertThat(history.samples())
        .extracting(DemandHistory.Sample::stepMs, s -> s.totals().pendingGenerations())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(T, 9L),
            org.assertj.core.groups.Tuple.tuple(T + 5000, 12L));
    assertThat(history.last().totals().oldestPendingExactMs()).isEqualTo(T - 2000);
  }

  @Test
  void shouldKeepTheLastHourInARingOfSevenHundredTwentySteps() {
    for (int i = 0; i < DemandHistory.CAPACITY + 100; i++) {
      now.set(T + i * DemandHistory.STEP_MS);
      history.sample();
    }
    assertThat(history.samples()).hasSize(DemandHistory.CAPACITY);
    assertThat(history.samples().get(0).stepMs()).isEqualTo(T + 100 * DemandHistory.STEP_MS);
    assertThat(history.samples().get(DemandHistory.CAPACITY - 1).stepMs()).isEqualTo(now.get());
    now.addAndGet(30 * 60_000L); // half an hour without samples
    assertThat(history.samples()).hasSize(DemandHistory.CAPACITY / 2);
  }

  @Test
  void shouldLeaveAGapWhileTheStoresCannotBeReadAndIgnoreAClockGoingBack() {
    history.sample();
    store.unavailable = true;
    now.addAndGet(DemandHistory.STEP_MS);
    history.sample();
    assertThat(history.last()).isNull();
    store.unavailable = false;
    now.addAndGet(DemandHistory.STEP_MS);
    history.sample();
    now.addAndGet(-3 * DemandHistory.STEP_MS);
    history.sample();
    assertThat(history.samples())
        .extracting(DemandHistory.Sample::stepMs)
        .containsExactly(T, T + 2 * DemandHistory.STEP_MS);
  }
}
