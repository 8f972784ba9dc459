package io.demandfold.stream;

/**
 * What the topology needs to know.
 *
 * @param eventsTopic input topic of events
 * @param shardRecordsTopic compacted output topic of shard views
 * @param tableDemandTopic compacted output topic of table views
 * @param outboxIntervalMs how often the outboxes emit and drain (wall clock)
 * @param mirrorShards whether shard records are mirrored into etcd
 * @param mirrorTables whether table records are mirrored into etcd
 * @param mirrorConcurrency most etcd calls in flight per outbox
 * @param inMemoryStores in-memory state stores (changelogged) instead of RocksDB
 */
public record StreamSettings(
    String eventsTopic,
    String shardRecordsTopic,
    String tableDemandTopic,
    long outboxIntervalMs,
    boolean mirrorShards,
    boolean mirrorTables,
    int mirrorConcurrency,
    boolean inMemoryStores) {

  /** The defaults, with every topic at its default name. */
  public static StreamSettings defaults() {
    return new StreamSettings(
        "demand.events", "demand.shard-records", "demand.table-demand", 100, true, true, 16, false);
  }
}
