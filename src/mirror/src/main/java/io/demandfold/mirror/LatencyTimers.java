package io.demandfold.mirror;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The timers of waits and calls (the mirror's, the fold's delay): each publishes its median and
 * 99th percentile over the last 30 s, which the dashboard and the alerts read.
 */
public final class LatencyTimers {
  private LatencyTimers() {}

  /** Registers the timer {@code name} in {@code registry}. */
  public static Timer register(MeterRegistry registry, String name, String description) {
    return Timer.builder(name)
        .description(description)
        .publishPercentiles(0.5, 0.99)
        .distributionStatisticExpiry(Duration.ofSeconds(30))
        .register(registry);
  }
}
