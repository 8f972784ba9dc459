package io.demandfold.bench;

import java.time.Duration;
import java.util.List;

/**
 * The sizes of the scale-out measure (f).
 *
 * @param partitions partitions of its events topic
 * @param instances {@code demandfold run} child JVMs sharing it
 * @param victim the index of the instance killed
 * @param preloadEvents events produced (as fast as they go) once the instances share the topic,
 *     folded before the steady phase, so that the stores hold a realistic state
 * @param rate events per second offered in the steady phase, from before the kill to its end
 * @param beforeKill how long events are offered before the kill
 * @param afterKill how long events are offered after it
 * @param sessionTimeoutMs {@code kafka.session.timeout.ms} of the instances: how long the group
 *     waits for a silent member before it hands its partitions on (Kafka's default is 45 s; 6 s is
 *     the broker's default minimum)
 * @param heartbeatIntervalMs {@code kafka.heartbeat.interval.ms} of the instances
 * @param standbys the values of {@code num.standby.replicas} measured, one run each
 * @param heap the {@code -Xmx} of each instance
 */
public record ScaleOutSettings(
    int partitions,
    int instances,
    int victim,
    int preloadEvents,
    int rate,
    Duration beforeKill,
    Duration afterKill,
    int sessionTimeoutMs,
    int heartbeatIntervalMs,
    List<Integer> standbys,
    String heap) {

  public ScaleOutSettings {
    if (victim < 0 || victim >= instances || instances < 2) {
      throw new IllegalArgumentException("victim " + victim + " of " + instances + " instances");
    }
    standbys = List.copyOf(standbys);
  }

  /** The full run: 12 partitions, 3 instances, 500,000 events preloaded, 2,000 events/s. */
  public static ScaleOutSettings full() {
    return new ScaleOutSettings(
        12,
        3,
        1,
        500_000,
        2000,
        Duration.ofSeconds(30),
        Duration.ofSeconds(45),
        6000,
        1500,
        List.of(0, 1),
        "512m");
  }

  /** Shorter: 50,000 events preloaded, 15 s before the kill and 30 s after it. */
  public static ScaleOutSettings quick() {
    return new ScaleOutSettings(
        12,
        3,
        1,
        50_000,
        2000,
        Duration.ofSeconds(15),
        Duration.ofSeconds(30),
        6000,
        1500,
        List.of(0, 1),
        "512m");
  }
}
