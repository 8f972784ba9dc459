package io.demandfold.core;

import java.util.OptionalLong;

/**
 * What the fold yields per target (docs/model.md section 7).
 *
 * @param pendingGenerations sum of the shards' pending generations
 * @param pendingBytes sum of sealed_bytes_through over shards with pending generations
 * @param oldestPendingMs the earliest oldest-pending time over shards, any bound (for display)
 * @param oldestPendingExactMs the earliest oldest-pending time over shards whose bound is {@link
 *     Bound#EXACT} (for promotion)
 * @param shards the number of shards folded
 */
public record TableView(
    long pendingGenerations,
    long pendingBytes,
    OptionalLong oldestPendingMs,
    OptionalLong oldestPendingExactMs,
    int shards) {

  /**
   * How exact {@link #oldestPendingMs} is: {@link Bound#EXACT} when a shard's exact time is the
   * oldest, {@link Bound#UPPER} when the oldest is only an upper bound, {@code null} when no time
   * is known.
   */
  public Bound oldestPendingBound() {
    if (oldestPendingMs.isEmpty()) {
      return null;
    }
    return oldestPendingExactMs.equals(oldestPendingMs) ? Bound.EXACT : Bound.UPPER;
  }

  /** The view over {@code records}, the folded records of one target. */
  public static TableView of(Iterable<ShardRecord> records) {
    Accumulator acc = new Accumulator();
    for (ShardRecord r : records) {
      acc.add(r);
    }
    return acc.view();
  }

  /** The view over {@code entries}, the table entries of one target's shards. */
  public static TableView ofEntries(Iterable<TableShard> entries) {
    Accumulator acc = new Accumulator();
    for (TableShard s : entries) {
      acc.add(s.sealedBytes(), s.view());
    }
    return acc.view();
  }

  /** Adds shards one at a time. Sums saturate at {@link Long#MAX_VALUE}. */
  public static final class Accumulator {
    private final TableTally tally = new TableTally();

    public Accumulator add(ShardRecord r) {
      return add(r.sealedBytesThrough(), ShardView.of(r));
    }

    /** Adds a shard with {@code sealedBytes} whose view the caller already has. */
    public Accumulator add(long sealedBytes, ShardView v) {
      tally.add(sealedBytes, v);
      return this;
    }

    public TableView view() {
      return tally.view();
    }
  }
}
