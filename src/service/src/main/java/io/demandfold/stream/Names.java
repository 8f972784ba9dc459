package io.demandfold.stream;

/**
 * Names of processors, stores and internal topics: part of the upgrade contract (changelog and
 * repartition topics are named after them), so never generated.
 */
public final class Names {
  public static final String EVENTS_SOURCE = "events-source";
  public static final String SHARD_JOIN = "shard-join";
  public static final String SHARD_RECORDS = "shard-records";
  public static final String SHARD_OUTBOX = "shard-outbox";
  public static final String SHARD_ROUTE = "shard-route";
  public static final String MISROUTED = "-misrouted";
  public static final String CHANGED = "-changed";
  public static final String MISROUTED_EVENT = "misrouted-event";
  public static final String MISROUTED_SINK = "misrouted-sink";
  public static final String SHARD_CHANGE = "shard-change";
  public static final String SHARD_VIEW = "shard-view";
  public static final String SHARD_RECORDS_SINK = "shard-records-sink";
  public static final String TARGET_KEY = "target-key";
  public static final String BY_TARGET = "by-target";
  public static final String TABLE_FOLD = "table-fold";
  public static final String TABLE_SHARDS = "table-shards";
  public static final String TABLE_DEMAND = "table-demand";
  public static final String TABLE_OUTBOX = "table-outbox";
  public static final String TABLE_DEMAND_SINK = "table-demand-sink";

  private Names() {}
}
