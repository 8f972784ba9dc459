package io.demandfold.core;

import java.util.Objects;

/**
 * One shard of a {@link TableRecord}, in the reference shape: its sealed and merged marks, sealed
 * bytes and sealed_times.
 *
 * @param sealed the sealed mark
 * @param merged the merged mark, {@code null} when unknown
 * @param sealedBytes bytes sealed through the sealed generation
 * @param sealedTimes flush times of the newest known generations, at most 64 (empty in a compact
 *     record)
 */
public record TableShard(Mark sealed, Mark merged, long sealedBytes, SealedTimes sealedTimes) {
  public TableShard {
    Objects.requireNonNull(sealed, "sealed");
    Objects.requireNonNull(sealedTimes, "sealedTimes");
  }

  /** The table entry of a folded shard record. */
  public static TableShard of(ShardRecord r) {
    return new TableShard(r.sealedMark(), r.mergedMark(), r.sealedBytesThrough(), r.sealedTimes());
  }

  /** The derived view of this shard (spec section 6). */
  public ShardView view() {
    return ShardView.of(sealed.value(), merged == null ? 0 : merged.value(), sealedTimes);
  }

  /**
   * The join of two entries of the same shard, dimension by dimension as in {@link Join}: larger
   * marks, larger bytes, union of sealed_times. Returns {@code this} when nothing changes.
   */
  public TableShard join(TableShard o) {
    Mark s = Join.max(sealed, o.sealed);
    Mark m = Join.max(merged, o.merged);
    long b = Math.max(sealedBytes, o.sealedBytes);
    SealedTimes t = Join.unionPruned(sealedTimes, o.sealedTimes);
    if (s.equals(sealed) && Objects.equals(m, merged) && b == sealedBytes && t == sealedTimes) {
      return this;
    }
    return new TableShard(s, m, b, t);
  }

  /** This entry without sealed_times, as written in a compact table record. */
  public TableShard withoutSealedTimes() {
    return sealedTimes.isEmpty()
        ? this
        : new TableShard(sealed, merged, sealedBytes, SealedTimes.EMPTY);
  }
}
