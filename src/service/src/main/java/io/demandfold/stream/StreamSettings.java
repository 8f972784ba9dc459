package io.demandfold.stream;

/**
 * What the topology needs to know.
 *
 * @param eventsTopic input topic of events
 * @param misroutedTopic topic of events that arrived on a partition their key does not hash to
 * @param eventsPartitions partitions of the events topic, to check that a record is on its key's
 *     partition; 0 or 1: no check
 * @param shardRecordsTopic compacted output topic of shard views
 * @param tableDemandTopic compacted output topic of table views
 * @param outboxIntervalMs how often dirty keys are mirrored (wall clock)
 * @param emitIntervalMs how long a changed key waits before it is emitted downstream
 * @param catchupLagMs how old the events being folded must be for a task to be catching up
 * @param catchupIntervalMs while catching up, how long a key dirty in memory when the catch-up
 *     began waits before it is emitted and mirrored; while live, the longest a changed key waits to
 *     be emitted ({@link Pacing})
 * @param catchupHoldMaxMs while catching up, how long a changed key may be held before the held
 *     keys are emitted and mirrored all the same ({@link Outbox#hold})
 * @param emitPacingLagMs how far the fold may lag the newest events before emission is paced
 * @param tableIntervalMs how often the table outbox emits and drains (wall clock)
 * @param mirrorShards whether shard records are mirrored into etcd
 * @param mirrorTables whether table records are mirrored into etcd
 * @param inMemoryStores in-memory state stores (changelogged) instead of RocksDB
 * @param tableCacheShards table entries the table stage keeps in memory per task
 * @param shardCacheRecords decoded shard records the shard stage keeps in memory per task, beyond
 *     those changed since the last commit
 * @param keysPerTask most shards one task folds; more go to the DLQ
 * @param shardsPerTarget most shards of one target in its table; more go to the DLQ
 */
public record StreamSettings(
    String eventsTopic,
    String misroutedTopic,
    int eventsPartitions,
    String shardRecordsTopic,
    String tableDemandTopic,
    long outboxIntervalMs,
    long emitIntervalMs,
    long catchupLagMs,
    long catchupIntervalMs,
    long catchupHoldMaxMs,
    long emitPacingLagMs,
    long tableIntervalMs,
    boolean mirrorShards,
    boolean mirrorTables,
    boolean inMemoryStores,
    int tableCacheShards,
    int shardCacheRecords,
    int keysPerTask,
    int shardsPerTarget) {

  /** These settings for an events topic of {@code partitions} partitions. */
  public StreamSettings withEventsPartitions(int partitions) {
    return new StreamSettings(
        eventsTopic,
        misroutedTopic,
        partitions,
        shardRecordsTopic,
        tableDemandTopic,
        outboxIntervalMs,
        emitIntervalMs,
        catchupLagMs,
        catchupIntervalMs,
        catchupHoldMaxMs,
        emitPacingLagMs,
        tableIntervalMs,
        mirrorShards,
        mirrorTables,
        inMemoryStores,
        tableCacheShards,
        shardCacheRecords,
        keysPerTask,
        shardsPerTarget);
  }

  /** The defaults, with every topic at its default name. */
  public static StreamSettings defaults() {
    return new StreamSettings(
        "demand.events",
        "demandfold-misrouted",
        1,
        "demand.shard-records",
        "demand.table-demand",
        100,
        1000,
        10_000,
        5000,
        300_000,
        250,
        1000,
        true,
        true,
        false,
        50_000,
        20_000,
        1_000_000,
        100_000);
  }
}
