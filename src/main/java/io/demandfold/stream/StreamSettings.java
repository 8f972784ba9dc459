package io.demandfold.stream;

/**
 * What the topology needs to know.
 *
 * @param eventsTopic input topic of events
 * @param shardRecordsTopic compacted output topic of shard views
 * @param tableDemandTopic compacted output topic of table views
 * @param outboxIntervalMs how often the shard outbox drains into etcd (wall clock)
 * @param emitIntervalMs how often changed shard records are emitted downstream (wall clock)
 * @param tableIntervalMs how often the table outbox emits and drains (wall clock)
 * @param mirrorShards whether shard records are mirrored into etcd
 * @param mirrorTables whether table records are mirrored into etcd
 * @param mirrorConcurrency most etcd calls in flight per outbox
 * @param mirrorBatchKeys most shard keys read or written by one etcd transaction
 * @param inMemoryStores in-memory state stores (changelogged) instead of RocksDB
 * @param tableCacheShards decoded shard records the table stage keeps in memory per task
 */
public record StreamSettings(
    String eventsTopic,
    String shardRecordsTopic,
    String tableDemandTopic,
    long outboxIntervalMs,
    long emitIntervalMs,
    long tableIntervalMs,
    boolean mirrorShards,
    boolean mirrorTables,
    int mirrorConcurrency,
    int mirrorBatchKeys,
    boolean inMemoryStores,
    int tableCacheShards) {

  /** The defaults, with every topic at its default name. */
  public static StreamSettings defaults() {
    return new StreamSettings(
        "demand.events",
        "demand.shard-records",
        "demand.table-demand",
        100,
        1000,
        5000,
        true,
        true,
        16,
        64,
        false,
        50_000);
  }
}
