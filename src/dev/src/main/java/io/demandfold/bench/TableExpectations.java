package io.demandfold.bench;

import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.TableTally;
import io.demandfold.core.TableView;
import java.util.HashMap;
import java.util.Map;

/**
 * The table side of the offline fold, for the view's lag: each shard's table entry ({@link
 * TableShard#of} of its folded record) and each target's {@link TableView} over them, extended
 * event by event in the order the events are sent. It says which events change their table's view
 * and what entry of its shard each leaves, and when a table record a listener heard holds that.
 *
 * <p>The pipeline folds a shard's events in the order they were sent, but a table's shards in
 * whatever order they reach the table stage (its shards are in several partitions), so a table
 * record is, shard by shard, a state the offline fold went through, not a state of the whole table
 * at one point of the stream. An event is therefore reflected once the entry of its own shard is at
 * or past the one it left: the join of the two is the heard entry itself ({@link TableShard#join}:
 * along the states of a fold, an entry never goes back).
 */
final class TableExpectations {
  private final Map<String, Map<String, TableShard>> entries = new HashMap<>();

  /** Each target's view, kept up to date as the table stage keeps it. */
  private final Map<String, TableTally> views = new HashMap<>();

  /**
   * @param folded the fold of every event sent before, by shard key ({@code <hex>/<shard>})
   */
  TableExpectations(Map<String, ShardRecord> folded) {
    for (Map.Entry<String, ShardRecord> e : folded.entrySet()) {
      Keys.ShardKey k = Keys.parse(e.getKey());
      entries
          .computeIfAbsent(k.target(), t -> new HashMap<>())
          .put(k.shard(), TableShard.of(e.getValue()));
    }
  }

  /**
   * Folds the next event sent: {@code after} is its shard's record once the event is joined in.
   *
   * @return the entry of the shard after the event when the event changes its target's table view
   *     (pending generations, pending bytes, oldest pending times, shards), else {@code null}
   */
  TableShard next(String target, String shard, ShardRecord after) {
    Map<String, TableShard> table = entries.computeIfAbsent(target, t -> new HashMap<>());
    TableShard entry = TableShard.of(after);
    TableShard before = table.get(shard);
    if (entry.equals(before)) {
      return null;
    }
    TableTally tally = views.computeIfAbsent(target, t -> counted(table));
    TableView was = tally.view();
    table.put(shard, entry);
    if (!tally.change(before, entry)) {
      tally = counted(table);
      views.put(target, tally);
    }
    return tally.view().equals(was) ? null : entry;
  }

  /** Whether a table record whose entry of the shard is {@code heard} reflects {@code expected}. */
  static boolean holds(TableShard heard, TableShard expected) {
    return heard != null && heard.join(expected) == heard;
  }

  private static TableTally counted(Map<String, TableShard> table) {
    TableTally t = new TableTally();
    table.values().forEach(t::add);
    return t;
  }
}
