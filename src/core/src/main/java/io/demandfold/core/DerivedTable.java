package io.demandfold.core;

import java.util.Objects;

/**
 * What a table record written without its entries (derived-only) carries: the table view and the
 * progress of the fold it was derived from.
 *
 * @param view the table view of the target's entries
 * @param progress the progress of those entries
 */
public record DerivedTable(TableView view, TableProgress progress) {
  public DerivedTable {
    Objects.requireNonNull(view, "view");
    Objects.requireNonNull(progress, "progress");
  }

  /** The derived fields and progress of {@code r}'s entries. */
  public static DerivedTable of(TableRecord r) {
    return new DerivedTable(r.view(), TableProgress.of(r.shards().values()));
  }
}
