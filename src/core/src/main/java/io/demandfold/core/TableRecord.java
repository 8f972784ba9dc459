package io.demandfold.core;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The per-target record mirrored to etcd under {@code <prefix>/demand/<hex>}: the reference table
 * shape (one {@link TableShard} per shard, {@code observed_revision}, {@code updated_ms}) from
 * which the table view (docs/model.md section 7) is derived. Each shard carries its marks, bytes
 * and only the flush time its view needs, so a record grows with the shards, not with their flush
 * times.
 *
 * <p>Every field is a join-semilattice, so other writers of the same key never lose progress and a
 * stale writer never lowers it: shards join one by one ({@link TableShard#join}), {@code
 * observed_revision} and {@code updated_ms} take the maximum. demandfold writes 0 for both: neither
 * is a function of the set of events (the sealed tie-break can lower a shard's flush time, so a
 * maximum over intermediate states would outlive the final fold), and a replay must reproduce the
 * record byte for byte.
 */
public final class TableRecord {
  private final SortedMap<String, TableShard> shards;
  private final long observedRevision;
  private final long updatedMs;

  public TableRecord(Map<String, TableShard> shards, long observedRevision, long updatedMs) {
    TreeMap<String, TableShard> sorted = new TreeMap<>(Keys.UTF8_ORDER);
    sorted.putAll(shards);
    this.shards = Collections.unmodifiableSortedMap(sorted);
    this.observedRevision = observedRevision;
    this.updatedMs = updatedMs;
  }

  /** The table record of a target's folded shard records. */
  public static TableRecord of(Iterable<ShardRecord> records) {
    TreeMap<String, TableShard> shards = new TreeMap<>(Keys.UTF8_ORDER);
    for (ShardRecord r : records) {
      shards.put(r.shard(), TableShard.of(r));
    }
    return new TableRecord(shards, 0, 0);
  }

  /** Shards by id, in UTF-8 byte order. */
  public SortedMap<String, TableShard> shards() {
    return shards;
  }

  public long observedRevision() {
    return observedRevision;
  }

  public long updatedMs() {
    return updatedMs;
  }

  /** The table view over the shards (docs/model.md section 7). */
  public TableView view() {
    return TableView.ofEntries(shards.values());
  }

  /** Joins {@code other} into this record; returns {@code this} itself when nothing changes. */
  public TableRecord join(TableRecord other) {
    boolean changed = false;
    TreeMap<String, TableShard> out = new TreeMap<>(Keys.UTF8_ORDER);
    out.putAll(shards);
    for (Map.Entry<String, TableShard> e : other.shards.entrySet()) {
      TableShard mine = out.get(e.getKey());
      TableShard joined = mine == null ? e.getValue() : mine.join(e.getValue());
      if (joined != mine) {
        out.put(e.getKey(), joined);
        changed = true;
      }
    }
    long rev = Math.max(observedRevision, other.observedRevision);
    long upd = Math.max(updatedMs, other.updatedMs);
    if (!changed && rev == observedRevision && upd == updatedMs) {
      return this;
    }
    return new TableRecord(out, rev, upd);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableRecord
        && ((TableRecord) o).observedRevision == observedRevision
        && ((TableRecord) o).updatedMs == updatedMs
        && ((TableRecord) o).shards.equals(shards);
  }

  @Override
  public int hashCode() {
    return shards.hashCode() * 31 + Long.hashCode(observedRevision ^ updatedMs);
  }

  @Override
  public String toString() {
    return "TableRecord{shards="
        + shards
        + ", observedRevision="
        + observedRevision
        + ", updatedMs="
        + updatedMs
        + "}";
  }
}
