package io.demandfold.http;

import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import java.util.List;

/**
 * What the HTTP API reads from the running pipeline: the state stores of this instance, which
 * instance holds a target, and this instance's vital signs. {@link StreamsDemandStore} answers from
 * Kafka Streams; tests answer from memory.
 *
 * <p>Every method may throw {@link StoreUnavailableException} while the stores move between
 * instances (a rebalance or a restore); the API answers 503 then.
 */
public interface DemandStore {
  /** This instance as {@code host:port}, the address other instances reach it at. */
  String self();

  /**
   * The folded shard records of the target of {@code hex} held by this instance (shard records are
   * partitioned by shard: other instances may hold others), in shard order (UTF-8 bytes): the first
   * {@code limit} of those whose shard comes after {@code after} ({@code null}: from the first).
   */
  List<ShardRecord> shards(String hex, String after, int limit);

  /**
   * The table stage's view of the target of {@code hex} if this instance holds it (table views are
   * partitioned by target: one instance holds it), else {@code null}.
   */
  TableView table(String hex);

  /** The table view of every target held here. */
  List<TableEntry> tables();

  /** Every other instance of the application, as {@code host:port}. */
  List<String> peers();

  /** This instance's state and counters. */
  Vitals vitals();

  /**
   * A target's table view.
   *
   * @param hex lowercase hex of the target's UTF-8 bytes
   * @param view its table view
   */
  record TableEntry(String hex, TableView view) {}

  /**
   * One instance's state and counters since it started.
   *
   * @param state the Kafka Streams state, e.g. {@code RUNNING}
   * @param dlqTotal events dead-lettered
   * @param eventsFolded valid events joined into shard records
   * @param dirtyShardKeys shard keys waiting to be emitted or mirrored
   * @param dirtyTableKeys table keys waiting to be emitted or mirrored
   * @param shardLagSeconds age of the oldest dirty shard key
   * @param tableLagSeconds age of the oldest dirty table key
   */
  record Vitals(
      String state,
      long dlqTotal,
      long eventsFolded,
      long dirtyShardKeys,
      long dirtyTableKeys,
      double shardLagSeconds,
      double tableLagSeconds) {}
}
