package io.demandfold.core;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An offline fold of events into per-shard records, grouped by target; targets and shards in UTF-8
 * byte order. Used by the {@code fold}, {@code audit} and {@code rebuild} commands and as the
 * expected answer in tests. Not thread-safe.
 */
public final class Fold {
  private final TreeMap<String, TreeMap<String, ShardRecord>> targets =
      new TreeMap<>(Keys.UTF8_ORDER);
  private long events;
  private long changes;

  /** Joins one event; returns whether it changed the folded record of its shard. */
  public boolean add(DemandEvent event) {
    return add(event.target(), event.record());
  }

  /** Joins one record of {@code target}; returns whether it changed the folded record. */
  public boolean add(String target, ShardRecord record) {
    events++;
    TreeMap<String, ShardRecord> shards =
        targets.computeIfAbsent(target, t -> new TreeMap<>(Keys.UTF8_ORDER));
    ShardRecord stored = shards.get(record.shard());
    ShardRecord joined = Join.join(stored, record);
    if (joined == stored) {
      return false;
    }
    shards.put(record.shard(), joined);
    changes++;
    return true;
  }

  /** Every target with its folded shard records, both in UTF-8 byte order. */
  public SortedMap<String, SortedMap<String, ShardRecord>> targets() {
    return Collections.unmodifiableSortedMap(targets);
  }

  /** The folded records of {@code target}, empty when none. */
  public SortedMap<String, ShardRecord> shards(String target) {
    TreeMap<String, ShardRecord> shards = targets.get(target);
    return shards == null
        ? Collections.emptySortedMap()
        : Collections.unmodifiableSortedMap(shards);
  }

  /** The table view of {@code target}. */
  public TableView table(String target) {
    return TableView.of(shards(target).values());
  }

  /** Events added so far. */
  public long events() {
    return events;
  }

  /** Events that changed a folded record. */
  public long changes() {
    return changes;
  }

  /** Number of distinct shards folded. */
  public long shardCount() {
    long n = 0;
    for (TreeMap<String, ShardRecord> shards : targets.values()) {
      n += shards.size();
    }
    return n;
  }
}
