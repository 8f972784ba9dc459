package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BoundedCallsTest {
  @Test
  void shouldKeepAtMostTheBoundInFlightAndCompleteEveryKey() throws Exception {
    ScheduledExecutorService clock = Executors.newScheduledThreadPool(4);
    try {
      AtomicInteger inFlight = new AtomicInteger();
      AtomicInteger most = new AtomicInteger();
      Map<Integer, CompletableFuture<Integer>> out =
          BoundedCalls.run(
              List.of(1, 2, 3, 4, 5, 6, 7, 8),
              3,
              Duration.ofSeconds(10),
              k -> {
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                CompletableFuture<Integer> f = new CompletableFuture<>();
                clock.schedule(
                    () -> {
                      inFlight.decrementAndGet();
                      f.complete(k * 10);
                    },
                    20,
                    TimeUnit.MILLISECONDS);
                return f;
              });
      assertThat(most.get()).isEqualTo(3);
      assertThat(out.keySet()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
      assertThat(out.get(8).join()).isEqualTo(80);
    } finally {
      clock.shutdownNow();
    }
  }

  @Test
  void shouldFailACallThatThrowsOrNeverCompletesWithoutFailingTheOthers() throws Exception {
    Map<String, CompletableFuture<String>> out =
        BoundedCalls.run(
            List.of("ok", "throws", "hangs"),
            2,
            Duration.ofMillis(200),
            k ->
                switch (k) {
                  case "ok" -> CompletableFuture.completedFuture(k);
                  case "throws" -> throw new IllegalStateException("boom");
                  default -> new CompletableFuture<>();
                });
    assertThat(out.get("ok").join()).isEqualTo("ok");
    assertThat(out.get("throws")).isCompletedExceptionally();
    assertThat(out.get("hangs").handle((v, e) -> e).join()).isInstanceOf(TimeoutException.class);
  }
}
