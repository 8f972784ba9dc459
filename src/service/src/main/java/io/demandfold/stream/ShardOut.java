package io.demandfold.stream;

import io.demandfold.core.DemandEvent;

/** What the shard stage hands downstream: a changed record, or an event it does not own. */
sealed interface ShardOut permits ShardChange, ShardOut.Misrouted {

  /**
   * An event that arrived on a partition its key does not hash to (its producer did not partition
   * like Java clients): it goes to the misrouted topic, partitioned by its key, and is folded by
   * the task that owns its shard, so that no shard is folded in two halves.
   *
   * @param event the event
   */
  record Misrouted(DemandEvent event) implements ShardOut {}
}
