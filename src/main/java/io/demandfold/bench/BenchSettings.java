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
 * @param memoryShards distinct shards folded by the service process whose heap is measured
 * @param memoryHeap the {@code -Xmx} of that process
 */
public record BenchSettings(
    int events,
    int targets,
    int shardsPerTarget,
    Duration referenceDuration,
    int referencePublishers,
    int latencyRate,
    Duration latencyDuration,
    int memoryShards,
    String memoryHeap) {

  /** These settings with another offered rate for the latency run. */
  public BenchSettings withLatencyRate(int rate) {
    return new BenchSettings(
        events,
        targets,
        shardsPerTarget,
        referenceDuration,
        referencePublishers,
        rate,
        latencyDuration,
        memoryShards,
        memoryHeap);
  }

  /** The full run of the issue: 1,000,000 events over 100 x 100 shards. */
  public static BenchSettings full() {
    return new BenchSettings(
        1_000_000,
        100,
        100,
        Duration.ofSeconds(20),
        16,
        5000,
        Duration.ofSeconds(60),
        100_000,
        "512m");
  }

  /** The same measurements at a smaller scale, under three minutes. */
  public static BenchSettings quick() {
    return new BenchSettings(
        100_000, 20, 50, Duration.ofSeconds(8), 16, 5000, Duration.ofSeconds(15), 20_000, "512m");
  }
}
