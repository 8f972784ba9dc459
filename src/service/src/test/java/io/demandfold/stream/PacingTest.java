package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PacingTest {
  private static final long MIN = 100;
  private static final long MAX = 5000;
  private static final long LAG = 250;

  @Test
  void shouldKeepTheShortestIntervalWhileEventsAreFoldedFresh() {
    Pacing p = new Pacing(MIN, MAX, LAG);
    for (long t = 0; t < 10_000; t += Pacing.PERIOD_MS) {
      p.observe(LAG, t);
    }
    assertThat(p.emitIntervalMs()).isEqualTo(MIN);
  }

  @Test
  void shouldGrowWithinASecondOfALagAndStopAtTheLongest() {
    Pacing p = new Pacing(MIN, MAX, LAG);
    long t = 0;
    p.observe(0, t);
    for (int i = 0; i < 10; i++) {
      t += Pacing.PERIOD_MS;
      p.observe(LAG + 1, t);
    }
    assertThat(p.emitIntervalMs()).isGreaterThan(5 * MIN);
    for (int i = 0; i < 100; i++) {
      t += Pacing.PERIOD_MS;
      p.observe(10 * LAG, t);
    }
    assertThat(p.emitIntervalMs()).isEqualTo(MAX);
  }

  @Test
  void shouldShrinkBackGraduallyOnceTheFoldKeepsUp() {
    Pacing p = new Pacing(MIN, MAX, LAG);
    long t = 0;
    for (int i = 0; i < 100; i++) {
      p.observe(10 * LAG, t += Pacing.PERIOD_MS);
    }
    p.observe(0, t += Pacing.PERIOD_MS);
    long before = p.emitIntervalMs();
    p.observe(0, t += Pacing.PERIOD_MS);
    long after = p.emitIntervalMs();
    assertThat(after).isLessThan(before).isGreaterThan(before * 9 / 10);
    for (int i = 0; i < 1000; i++) {
      p.observe(0, t += Pacing.PERIOD_MS);
    }
    assertThat(p.emitIntervalMs()).isEqualTo(MIN);
  }

  @Test
  void shouldReadTheWorstTaskOfAPeriodAndHoldBetweenHalfAndTheLag() {
    Pacing p = new Pacing(MIN, MAX, LAG);
    long t = 0;
    p.observe(0, t);
    // many tasks report within one period: one lagging task is enough
    p.observe(0, t + 10);
    p.observe(LAG * 2, t + 20);
    p.observe(0, t + 30);
    p.observe(0, t += Pacing.PERIOD_MS);
    long grown = p.emitIntervalMs();
    assertThat(grown).isGreaterThan(MIN);
    // a lag between half the limit and the limit neither grows nor shrinks the interval
    for (int i = 0; i < 20; i++) {
      p.observe(LAG * 3 / 4, t += Pacing.PERIOD_MS);
    }
    assertThat(p.emitIntervalMs()).isEqualTo(grown);
  }
}
