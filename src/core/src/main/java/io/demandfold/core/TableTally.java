package io.demandfold.core;

import java.util.OptionalLong;

/**
 * The {@link TableView} of one target, kept up to date shard by shard: a shard added, or a shard's
 * table entry replaced by a later one, changes the sums by the difference and the oldest pending
 * times by the new entry, without reading the other shards again (docs/model.md section 7).
 *
 * <p>The sums and the earliest times can always be added to. They cannot always be taken back: when
 * the entry that is replaced held the earliest time and its successor's is later or gone, the next
 * earliest is among the other shards, and once a sum has saturated at {@link Long#MAX_VALUE} its
 * parts are lost. {@link #change} then says so, the tally is no longer {@link #known()}, and the
 * caller counts the target's entries again into a new one. A tally that is known gives exactly the
 * view of its shards' current entries, and, when it was given the entries themselves, their {@link
 * TableProgress} (exact sums, which can always be taken back). Not thread-safe.
 */
public final class TableTally {
  private long pending;
  private long bytes;
  private long oldest = Long.MAX_VALUE;
  private boolean hasOldest;
  private long oldestExact = Long.MAX_VALUE;
  private boolean hasOldestExact;
  private int shards;
  private boolean saturated;
  private boolean known = true;
  private final TableProgress.Sum progress = new TableProgress.Sum();
  private boolean withProgress = true;

  /**
   * Adds a shard with {@code sealedBytes} whose view the caller already has; the tally then has no
   * {@link #progress()}.
   */
  public TableTally add(long sealedBytes, ShardView v) {
    withProgress = false;
    return addView(sealedBytes, v);
  }

  private TableTally addView(long sealedBytes, ShardView v) {
    shards++;
    if (v.pendingGenerations() > 0) {
      pending = saturatedAdd(pending, v.pendingGenerations());
      bytes = saturatedAdd(bytes, sealedBytes);
    }
    if (v.oldestPendingMs().isPresent()) {
      long t = v.oldestPendingMs().getAsLong();
      if (!hasOldest || t < oldest) {
        oldest = t;
        hasOldest = true;
      }
      if (v.oldestPendingBound() == Bound.EXACT && (!hasOldestExact || t < oldestExact)) {
        oldestExact = t;
        hasOldestExact = true;
      }
    }
    return this;
  }

  /** Adds a shard by its table entry. */
  public TableTally add(TableShard entry) {
    progress.add(entry);
    return addView(entry.sealedBytes(), entry.view());
  }

  /**
   * A shard's entry went from {@code before} ({@code null}: the shard is new) to {@code after}.
   *
   * @return whether the tally still knows its view; when false it stays unknown, and the target's
   *     entries must be counted again
   */
  public boolean change(TableShard before, TableShard after) {
    if (!known) {
      return false;
    }
    if (before == null) {
      add(after);
      return true;
    }
    ShardView b = before.view();
    ShardView a = after.view();
    if (saturated
        || holdsEarliest(b.oldestPendingMs(), hasOldest, oldest, a.oldestPendingMs())
        || holdsEarliest(exactTime(b), hasOldestExact, oldestExact, exactTime(a))) {
      known = false;
      return false;
    }
    if (b.pendingGenerations() > 0) {
      // exact sums (none has saturated) that hold the shard's former part
      pending -= b.pendingGenerations();
      bytes -= before.sealedBytes();
    }
    shards--;
    addView(after.sealedBytes(), a);
    progress.remove(before).add(after);
    return true;
  }

  /**
   * Whether the earliest time is {@code was}'s and {@code now} does not keep it as early: the next
   * earliest would be another shard's.
   */
  private static boolean holdsEarliest(
      OptionalLong was, boolean hasEarliest, long earliest, OptionalLong now) {
    return was.isPresent()
        && hasEarliest
        && was.getAsLong() == earliest
        && (now.isEmpty() || now.getAsLong() > earliest);
  }

  private static OptionalLong exactTime(ShardView v) {
    return v.oldestPendingBound() == Bound.EXACT ? v.oldestPendingMs() : OptionalLong.empty();
  }

  /** Whether {@link #view()} is the view of the shards' current entries. */
  public boolean known() {
    return known;
  }

  /**
   * The view of the shards added and changed.
   *
   * @throws IllegalStateException when a {@link #change} made it unknown
   */
  public TableView view() {
    if (!known) {
      throw new IllegalStateException("the tally lost its view at a change: count it again");
    }
    return new TableView(
        pending,
        bytes,
        hasOldest ? OptionalLong.of(oldest) : OptionalLong.empty(),
        hasOldestExact ? OptionalLong.of(oldestExact) : OptionalLong.empty(),
        shards);
  }

  /**
   * The progress of the shards' current entries.
   *
   * @throws IllegalStateException when a {@link #change} made the tally unknown, or a shard was
   *     added by its view alone
   */
  public TableProgress progress() {
    if (!known || !withProgress) {
      throw new IllegalStateException(
          known ? "a shard was added without its entry" : "the tally lost its view at a change");
    }
    return progress.progress();
  }

  private long saturatedAdd(long a, long b) {
    long r = a + b;
    if (r < 0) {
      saturated = true;
      return Long.MAX_VALUE;
    }
    return r;
  }
}
