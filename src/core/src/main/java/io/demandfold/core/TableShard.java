package io.demandfold.core;

import java.util.Comparator;
import java.util.Objects;

/**
 * One shard of a {@link TableRecord}: the reference entry (sealed and merged marks, sealed bytes)
 * with only the flush time its view needs, and enough to order two states of the shard.
 *
 * <p>A shard's table entry is derived from its folded record ({@link #of}): the marks, the bytes,
 * the <em>oldest pending flush time</em> (the lowest kept generation above {@code merged}, with its
 * time: written as the only {@code sealed_times} entry, so a reader that applies docs/model.md
 * section 6 to the entry gets the same view) and {@link Kept}, the number and lowest generation of
 * the flush times the record keeps.
 *
 * <p>Two entries of a shard join dimension by dimension for the marks and bytes (larger wins, as in
 * {@link Join}), and take the oldest pending time of the entry that is later by {@link #AGE_ORDER}.
 * Along the states of one fold that order never decreases ({@code merged}, {@code sealed} and the
 * bytes only grow; with them equal, {@code merged} is fixed and the kept flush times are the 64
 * highest above it of a growing set (docs/model.md section 5): a generation at or below merged
 * never enters them, one above enters and pushes out at most the lowest, so their count never
 * falls, and with the count equal their lowest generation never falls (a flush of generation 3
 * after one of 5 lowers the lowest, but raises the count first); with both equal, the set is the
 * same and times only get earlier), so the join of any entries a fold went through is the entry of
 * its last state: a stale writer never lowers an entry, and a replay writes the same bytes.
 *
 * @param sealed the sealed mark
 * @param merged the merged mark, {@code null} when unknown
 * @param sealedBytes bytes sealed through the sealed generation
 * @param oldestGeneration the lowest kept generation above merged, or {@link #NONE}
 * @param oldestMs its flush time (0 when there is none)
 * @param kept how many flush times the shard's record keeps, and the lowest of their generations
 */
public record TableShard(
    Mark sealed, Mark merged, long sealedBytes, long oldestGeneration, long oldestMs, Kept kept) {

  /** No oldest pending generation is known. */
  public static final long NONE = -1;

  /**
   * How many flush times a record keeps and the lowest of their generations (0 when none): grows
   * along the states of a fold whose marks and bytes stay the same.
   *
   * @param count kept flush times, at most {@link Limits#SEALED_TIMES_CAP}
   * @param lowest the lowest kept generation, 0 when none is kept
   */
  public record Kept(int count, long lowest) {
    public static final Kept NONE = new Kept(0, 0);
  }

  /**
   * Orders the states of a shard so that a later state of a fold is never smaller: merged mark
   * (absent first), sealed mark, sealed bytes, kept count, lowest kept generation, then the earlier
   * oldest pending time (none first), then the lower oldest generation.
   */
  public static final Comparator<TableShard> AGE_ORDER =
      Comparator.comparing(TableShard::merged, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(TableShard::sealed)
          .thenComparingLong(TableShard::sealedBytes)
          .thenComparingInt(s -> s.kept().count())
          .thenComparingLong(s -> s.kept().lowest())
          .thenComparing(TableShard::hasOldest)
          .thenComparing(Comparator.comparingLong(TableShard::oldestMs).reversed())
          .thenComparing(Comparator.comparingLong(TableShard::oldestGeneration).reversed());

  public TableShard {
    Objects.requireNonNull(sealed, "sealed");
    Objects.requireNonNull(kept, "kept");
    if (oldestGeneration == NONE) {
      oldestMs = 0;
    }
  }

  /** The table entry of a folded shard record. */
  public static TableShard of(ShardRecord r) {
    return of(r.sealedMark(), r.mergedMark(), r.sealedBytesThrough(), r.sealedTimes());
  }

  /**
   * The entry of a shard with these marks, bytes and flush times; of flush times a record keeps
   * beyond the cut of docs/model.md section 5 (another writer's, or one written under an older
   * rule), only those the cut keeps count: the {@link Limits#SEALED_TIMES_CAP} highest above
   * merged.
   */
  public static TableShard of(Mark sealed, Mark merged, long sealedBytes, SealedTimes times) {
    int n = times.size();
    int from = Math.max(0, n - Limits.SEALED_TIMES_CAP);
    if (merged != null) {
      from = Math.max(from, times.ceilingIndex(merged.value() + 1));
    }
    Kept kept = from == n ? Kept.NONE : new Kept(n - from, times.generation(from));
    long first = (merged == null ? 0 : merged.value()) + 1;
    int i = Math.max(from, times.ceilingIndex(first));
    return i < n
        ? new TableShard(sealed, merged, sealedBytes, times.generation(i), times.time(i), kept)
        : new TableShard(sealed, merged, sealedBytes, NONE, 0, kept);
  }

  /** Whether an oldest pending generation is known. */
  public boolean hasOldest() {
    return oldestGeneration != NONE;
  }

  /** The derived view of this shard (docs/model.md section 6). */
  public ShardView view() {
    long m = merged == null ? 0 : merged.value();
    long pending = Math.max(0, sealed.value() - m);
    if (pending == 0 || oldestGeneration <= m) {
      return ShardView.of(sealed.value(), m, SealedTimes.EMPTY);
    }
    SealedTimes one = new SealedTimes(new long[] {oldestGeneration}, new long[] {oldestMs}, 1);
    return ShardView.of(sealed.value(), m, one);
  }

  /**
   * The join of two entries of the same shard: larger marks and bytes; the oldest pending time and
   * kept flush times of the entry later by {@link #AGE_ORDER}. Returns {@code this} when nothing
   * changes.
   */
  public TableShard join(TableShard o) {
    Mark s = Join.max(sealed, o.sealed);
    Mark m = Join.max(merged, o.merged);
    long b = Math.max(sealedBytes, o.sealedBytes);
    TableShard age = AGE_ORDER.compare(o, this) > 0 ? o : this;
    if (s.equals(sealed) && Objects.equals(m, merged) && b == sealedBytes && age == this) {
      return this;
    }
    return new TableShard(s, m, b, age.oldestGeneration, age.oldestMs, age.kept);
  }
}
