package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link Harness#await} and {@link Harness#awaitEquals} without a broker: a wait that ends. */
class HarnessAwaitTest {

  @Test
  void shouldReturnTheFirstValueTheConditionAccepts() throws Exception {
    AtomicInteger polls = new AtomicInteger();
    int seen =
        Harness.await("3 polls", polls::incrementAndGet, n -> n >= 3, Duration.ofSeconds(10));
    assertThat(seen).isEqualTo(3);
    assertThat(polls).hasValue(3);
  }

  @Test
  void shouldFailAfterItsPatienceSayingWhatItWaitedForAndWhatItLastSaw() {
    AtomicInteger polls = new AtomicInteger();
    long t0 = System.nanoTime();
    assertThatThrownBy(
            () ->
                Harness.await(
                    "the count to reach 1000",
                    () -> "count=" + polls.incrementAndGet(),
                    s -> s.equals("count=1000"),
                    Duration.ofMillis(500)))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("waited 500 ms for the count to reach 1000; last saw: count=")
        .hasMessageEndingWith("count=" + polls.get());
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(500));
    assertThat(polls.get()).as("polled until the end, not once").isGreaterThan(1);
  }

  @Test
  void shouldFailWithTheDifferenceWhenAValueNeverEqualsTheWantedOne() {
    assertThatThrownBy(
            () ->
                Harness.awaitEquals(
                    "etcd",
                    () -> Map.of("a", "1", "b", "2"),
                    Map.of("a", "1", "b", "3"),
                    Duration.ofMillis(300)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("etcd, after waiting 300 ms")
        .hasMessageContaining("expected: {\"a\"=\"1\", \"b\"=\"3\"}")
        .hasMessageContaining("but was: {\"a\"=\"1\", \"b\"=\"2\"}");
  }

  @Test
  void shouldRefuseAtOnceToWaitForANumberOfAnotherType() {
    assertThatThrownBy(() -> Harness.awaitEquals("dirty keys", () -> 3L, 0, Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("dirty keys: a Long never equals the Integer 0");
  }

  @Test
  void shouldShowTheStartAndTheEndOfALongValue() {
    String line = "head" + "x".repeat(10_000) + "tail";
    assertThatThrownBy(() -> Harness.await("nothing", () -> line, s -> false, Duration.ofMillis(1)))
        .hasMessageContaining("last saw: headxxx")
        .hasMessageContaining(" [... 8008 characters ...] ")
        .hasMessageEndingWith("xxxtail");
  }

  @Test
  void shouldEndTheWaitAtOnceWhenTheProbeFails() {
    AtomicInteger polls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Harness.await(
                    "a probe that fails",
                    () -> {
                      polls.incrementAndGet();
                      throw new IllegalStateException("no broker");
                    },
                    v -> true,
                    Duration.ofSeconds(30)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no broker");
    assertThat(polls).as("probes: the first failure ends the wait").hasValue(1);
  }
}
