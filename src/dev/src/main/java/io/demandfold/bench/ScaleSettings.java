package io.demandfold.bench;

import java.time.Duration;

/**
 * The sizes of the million-shard measure (g) and of the live one after it, (h).
 *
 * @param targets tables of its fleet
 * @param shardsPerTarget shards per table
 * @param events events preloaded over them (the realistic mix of random shards)
 * @param serviceHeap the {@code -Xmx} of the {@code demandfold run} child that folds them
 * @param opsHeap the {@code -Xmx} of the {@code audit} and {@code rebuild} children
 * @param live how long (h) offers the fleet's live events
 */
public record ScaleSettings(
    int targets,
    int shardsPerTarget,
    int events,
    String serviceHeap,
    String opsHeap,
    Duration live) {

  /** How often a shard of the live fleet (h) gets an event, on average. */
  static final Duration EVENT_EVERY = Duration.ofMinutes(1);

  public ScaleSettings {
    if (targets < 1 || shardsPerTarget < 1 || events < 1) {
      throw new IllegalArgumentException(
          "(g) needs tables, shards and events, got " + targets + "x" + shardsPerTarget);
    }
    if (live.toSeconds() < 1) {
      throw new IllegalArgumentException("(h) needs at least a second, got " + live);
    }
  }

  /** Shards of the fleet. */
  public long shards() {
    return (long) targets * shardsPerTarget;
  }

  /**
   * The events per second (h) offers: each shard one every {@link #EVENT_EVERY} on average (16,667
   * at 10^6 shards).
   */
  public int liveRate() {
    return (int) Math.max(1, Math.round(shards() / (double) EVENT_EVERY.toSeconds()));
  }

  /**
   * How long (h) offers before its measured {@link #live} minutes, not counted: the new service's
   * JIT compiler and caches start there. A sixth of {@link #live}, at most 30 s.
   */
  public Duration liveWarmUp() {
    Duration sixth = live.dividedBy(6);
    return sixth.compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30) : sixth;
  }

  /**
   * How long (h) waits, after the last event was sent, for etcd to show the last timed ones: twice
   * the offering, at least a minute.
   */
  public Duration liveDrain() {
    return live.multipliedBy(2).compareTo(Duration.ofMinutes(1)) < 0
        ? Duration.ofMinutes(1)
        : live.multipliedBy(2);
  }

  /** 10,000 tables x 100 shards, three events a shard on average; (h) for 5 minutes. */
  public static ScaleSettings full() {
    return new ScaleSettings(10_000, 100, 3_000_000, "1g", "512m", Duration.ofMinutes(5));
  }

  /** 200 tables x 100 shards; (h) for a minute. */
  public static ScaleSettings quick() {
    return new ScaleSettings(200, 100, 60_000, "1g", "512m", Duration.ofMinutes(1));
  }
}
