package io.demandfold.view;

import java.util.Objects;

/**
 * A change of one target's table record, as a {@link DemandListener} hears of it: one per etcd
 * event on the record (a rewrite of the same demand is a change too, with a new revision), or one
 * per target whose record differs after a resync.
 *
 * @param target the target
 * @param old what the view held before, {@code null} when it held nothing readable
 * @param current what it holds now, {@code null} when the record was deleted or is refused
 * @param revision the etcd revision of the change (of a resync: the snapshot's)
 * @param refused why the record is not read (a newer schema, unreadable JSON) when {@code current}
 *     is {@code null} because of that, else {@code null}; its key is then in {@link
 *     DemandView#refused()}
 */
public record TableChange(
    String target, TableDemand old, TableDemand current, long revision, String refused) {
  public TableChange {
    Objects.requireNonNull(target, "target");
  }

  /** Whether the record was deleted (not refused). */
  public boolean deleted() {
    return current == null && refused == null;
  }
}
