package io.demandfold.view;

import io.demandfold.core.Bound;
import io.demandfold.core.TableView;
import io.demandfold.core.Urgency;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One target's demand as the {@link DemandView} holds it: the table view of its etcd table record
 * (docs/model.md section 7), the record's mod revision, and its {@link Urgency} class at the time
 * it was read.
 *
 * @param target the target (table name)
 * @param view pending generations and bytes, oldest pending times, shards
 * @param revision the etcd mod revision of the table record this was read from
 * @param urgency the class of the view by the view's {@link io.demandfold.core.DemandClasses}, at
 *     the time of the read (ages grow: read again for a fresh class)
 */
public record TableDemand(String target, TableView view, long revision, Urgency urgency) {
  public TableDemand {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(view, "view");
    Objects.requireNonNull(urgency, "urgency");
  }

  /** Generations waiting to be merged, summed over the shards. */
  public long pendingGenerations() {
    return view.pendingGenerations();
  }

  /** Bytes sealed by the shards that have pending generations. */
  public long pendingBytes() {
    return view.pendingBytes();
  }

  /** The earliest oldest pending flush time over the shards, of any bound (for display). */
  public OptionalLong oldestPendingMs() {
    return view.oldestPendingMs();
  }

  /** The earliest oldest pending flush time over the shards whose time is exact (for promotion). */
  public OptionalLong oldestPendingExactMs() {
    return view.oldestPendingExactMs();
  }

  /** How exact {@link #oldestPendingMs} is; {@code null} when no time is known. */
  public Bound oldestPendingBound() {
    return view.oldestPendingBound();
  }

  /** How many shards the record covers. */
  public int shards() {
    return view.shards();
  }
}
