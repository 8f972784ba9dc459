package io.demandfold.bench;

import java.time.Duration;

/**
 * The sizes of one benchmark run.
 *
 * @param events events preloaded for the limit and pipeline runs
 * @param targets tables of the fleet
 * @param shardsPerTarget shards per table
 * @param referenceDuration how long the reference publishers run (on a prefix of the stream)
 * @param referencePublishers concurrent reference publishers
 * @param latencyRate offered events per second for the latency run
 * @param latencyDuration how long the latency run offers events
 * @param loadDuration how long the second latency run offers half the pipeline's rate
 * @param memoryShards distinct shards folded by the service process whose heap is measured
 * @param memoryHeap the {@code -Xmx} of that process
 * @param scaleOut the sizes of the scale-out measure (f)
 * @param sweepBase the events/s (d)'s sweep takes its fractions of; 0: (b)'s rate as measured
 * @param scale the sizes of the million-shard measure (g)
 */
public record BenchSettings(
    int events,
    int targets,
    int shardsPerTarget,
    Duration referenceDuration,
    int referencePublishers,
    int latencyRate,
    Duration latencyDuration,
    Duration loadDuration,
    int memoryShards,
    String memoryHeap,
    ScaleOutSettings scaleOut,
    int sweepBase,
    ScaleSettings scale) {

  /**
   * These settings with the sizes given on the command line instead of the mode's: preloaded
   * events, the latency run's offered rate, the rate the sweep takes its fractions of; {@code null}
   * keeps the mode's.
   */
  public BenchSettings with(Integer events, Integer latencyRate, Integer sweepBase) {
    return new BenchSettings(
        events == null ? this.events : events,
        targets,
        shardsPerTarget,
        referenceDuration,
        referencePublishers,
        latencyRate == null ? this.latencyRate : latencyRate,
        latencyDuration,
        loadDuration,
        memoryShards,
        memoryHeap,
        scaleOut,
        sweepBase == null ? this.sweepBase : sweepBase,
        scale);
  }

  /** The full run: 5,000,000 events over 100 x 100 shards. */
  public static BenchSettings full() {
    return new BenchSettings(
        5_000_000,
        100,
        100,
        Duration.ofSeconds(60),
        16,
        5000,
        Duration.ofSeconds(60),
        Duration.ofSeconds(20),
        100_000,
        "512m",
        ScaleOutSettings.full(),
        0,
        ScaleSettings.full());
  }

  /** The same measurements at a smaller scale, in a few minutes. */
  public static BenchSettings quick() {
    return new BenchSettings(
        300_000,
        20,
        50,
        Duration.ofSeconds(15),
        16,
        5000,
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        20_000,
        "512m",
        ScaleOutSettings.quick(),
        0,
        ScaleSettings.quick());
  }
}
