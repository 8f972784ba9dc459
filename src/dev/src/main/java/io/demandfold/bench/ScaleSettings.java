package io.demandfold.bench;

/**
 * The sizes of the million-shard measure (g).
 *
 * @param targets tables of its fleet
 * @param shardsPerTarget shards per table
 * @param events events preloaded over them (the realistic mix of random shards)
 * @param serviceHeap the {@code -Xmx} of the {@code demandfold run} child that folds them
 * @param opsHeap the {@code -Xmx} of the {@code audit} and {@code rebuild} children
 */
public record ScaleSettings(
    int targets, int shardsPerTarget, int events, String serviceHeap, String opsHeap) {

  public ScaleSettings {
    if (targets < 1 || shardsPerTarget < 1 || events < 1) {
      throw new IllegalArgumentException(
          "(g) needs tables, shards and events, got " + targets + "x" + shardsPerTarget);
    }
  }

  /** Shards of the fleet. */
  public long shards() {
    return (long) targets * shardsPerTarget;
  }

  /** 10,000 tables x 100 shards, three events a shard on average. */
  public static ScaleSettings full() {
    return new ScaleSettings(10_000, 100, 3_000_000, "1g", "512m");
  }

  /** 200 tables x 100 shards. */
  public static ScaleSettings quick() {
    return new ScaleSettings(200, 100, 60_000, "1g", "512m");
  }
}
