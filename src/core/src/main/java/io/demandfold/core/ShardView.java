package io.demandfold.core;

import java.util.OptionalLong;

/**
 * What the fold yields per shard (docs/model.md section 6).
 *
 * @param pendingGenerations {@code max(0, sealed - merged)}
 * @param oldestPendingMs the flush time of the oldest pending generation, if known
 * @param oldestPendingBound how exact that time is; {@code null} exactly when there is no time
 */
public record ShardView(
    long pendingGenerations, OptionalLong oldestPendingMs, Bound oldestPendingBound) {
  private static final ShardView NONE = new ShardView(0, OptionalLong.empty(), null);

  /** The view of a folded record. */
  public static ShardView of(ShardRecord r) {
    return of(
        r.sealedThrough(), r.hasMergedThrough() ? r.mergedThroughOrAbsent() : 0, r.sealedTimes());
  }

  /** The view of a shard sealed through {@code sealed}, merged through {@code merged} (0: none). */
  static ShardView of(long sealed, long merged, SealedTimes times) {
    long pending = Math.max(0, sealed - merged);
    if (pending == 0) {
      return NONE;
    }
    long first = merged + 1;
    int i = times.ceilingIndex(first);
    if (i == times.size()) {
      return new ShardView(pending, OptionalLong.empty(), null);
    }
    Bound bound = times.generation(i) == first ? Bound.EXACT : Bound.UPPER;
    return new ShardView(pending, OptionalLong.of(times.time(i)), bound);
  }
}
