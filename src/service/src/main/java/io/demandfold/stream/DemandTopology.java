package io.demandfold.stream;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Keys;
import io.demandfold.core.TableShard;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.LiveMirror;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Builds the demandfold topology:
 *
 * <pre>
 * events-source (demand.events and &lt;application.id&gt;-misrouted; bad keys/values: DLQ)
 *   -&gt; shard-join [shard-records, shard-outbox]   (join per key; outbox: emit + etcd)
 *        -&gt; shard-route-misrouted -&gt; misrouted-event -&gt; misrouted-sink (&lt;application.id&gt;-misrouted)
 *        -&gt; shard-route-changed -&gt; shard-change
 *        -&gt; shard-view -&gt; shard-records-sink (demand.shard-records)
 *        -&gt; target-key (shard summary) -&gt; by-target (repartition by hex(target))
 *             -&gt; table-fold [table-shards, table-demand, table-outbox] (table view; outbox)
 *                  -&gt; table-demand-sink (demand.table-demand)
 * </pre>
 *
 * Every processor, store and internal topic is named here: see {@link Names}. Every store is a
 * {@link DecodedStore}: values stay decoded in memory and reach the changelog once per commit.
 */
public final class DemandTopology {
  /**
   * A changed store value left alone this long is written to the changelog before the commit, so
   * that a commit of a live stream has little left to write: a second-long commit stalls the stream
   * thread for as long as it writes. A catch-up changes a hot shard more often than this, so it
   * still writes each shard about once per commit.
   */
  static final long WRITE_AFTER_MS = 500;

  private DemandTopology() {}

  /**
   * @param mirror the instance's live mirror into etcd, or {@code null} for no etcd at all
   */
  public static Topology build(StreamSettings s, LiveMirror mirror, PipelineMetrics metrics) {
    return build(s, mirror, metrics, new InputLag());
  }

  /**
   * @param mirror the instance's live mirror into etcd, or {@code null} for no etcd at all
   * @param inputLag which input partitions the instance's consumer has not fetched to their end
   */
  public static Topology build(
      StreamSettings s, LiveMirror mirror, PipelineMetrics metrics, InputLag inputLag) {
    StreamsBuilder b = new StreamsBuilder();
    Serde<String> strings = Serdes.String();
    int tableCache = s.tableCacheShards();
    b.addStateStore(
        store(
            s,
            Names.SHARD_RECORDS,
            DemandSerdes.shardRecord(),
            true,
            s.shardCacheRecords(),
            false));
    // a catch-up holds every shard it changed in the outbox: as many keys as shards
    b.addStateStore(store(s, Names.SHARD_OUTBOX, DemandSerdes.dirtySince(), true, 0, false));
    // the table stage reads a target's entries by prefix
    b.addStateStore(
        store(s, Names.TABLE_SHARDS, DemandSerdes.tableShard(), true, tableCache, true));
    b.addStateStore(store(s, Names.TABLE_DEMAND, DemandSerdes.tableView(), false, 0, false));
    b.addStateStore(store(s, Names.TABLE_OUTBOX, DemandSerdes.dirtySince(), false, 0, false));

    LiveMirror shardMirror = s.mirrorShards() ? mirror : null;
    LiveMirror tableMirror = s.mirrorTables() ? mirror : null;
    Pacing pacing = Pacing.of(s);
    metrics.bind(pacing);
    if (mirror != null) {
      mirror.coalesceFor(pacing::mirrorCoalesceMs);
    }

    KStream<String, DemandEvent> events =
        b.stream(
            List.of(s.eventsTopic(), s.misroutedTopic()),
            Consumed.with(DemandSerdes.eventKey(), DemandSerdes.event())
                .withName(Names.EVENTS_SOURCE));
    KStream<String, ShardOut> out =
        events.process(
            () -> new ShardJoinProcessor(s, shardMirror, pacing, inputLag, metrics),
            Named.as(Names.SHARD_JOIN),
            Names.SHARD_RECORDS,
            Names.SHARD_OUTBOX);
    Map<String, KStream<String, ShardOut>> routes =
        out.split(Named.as(Names.SHARD_ROUTE))
            .branch((key, o) -> o instanceof ShardOut.Misrouted, Branched.as(Names.MISROUTED))
            .defaultBranch(Branched.as(Names.CHANGED));
    routes
        .get(Names.SHARD_ROUTE + Names.MISROUTED)
        .mapValues(o -> ((ShardOut.Misrouted) o).event(), Named.as(Names.MISROUTED_EVENT))
        .to(
            s.misroutedTopic(),
            Produced.with(DemandSerdes.eventKey(), DemandSerdes.event())
                .withName(Names.MISROUTED_SINK));
    KStream<String, ShardChange> changed =
        routes
            .get(Names.SHARD_ROUTE + Names.CHANGED)
            .mapValues(o -> (ShardChange) o, Named.as(Names.SHARD_CHANGE));
    changed
        .mapValues(
            (key, c) -> ViewJson.shardLine(Keys.parse(key).target(), c.record(), c.json()),
            Named.as(Names.SHARD_VIEW))
        .to(
            s.shardRecordsTopic(),
            Produced.with(strings, DemandSerdes.bytes()).withName(Names.SHARD_RECORDS_SINK));
    changed
        .map(
            (key, c) ->
                KeyValue.pair(
                    key.substring(0, key.indexOf('/')),
                    new ShardSummary(c.record().shard(), TableShard.of(c.record()))),
            Named.as(Names.TARGET_KEY))
        .repartition(
            Repartitioned.with(strings, DemandSerdes.shardSummary()).withName(Names.BY_TARGET))
        .process(
            () -> new TableFoldProcessor(s, tableMirror, pacing, metrics),
            Named.as(Names.TABLE_FOLD),
            Names.TABLE_SHARDS,
            Names.TABLE_DEMAND,
            Names.TABLE_OUTBOX)
        .to(
            s.tableDemandTopic(),
            Produced.with(strings, DemandSerdes.bytes()).withName(Names.TABLE_DEMAND_SINK));
    return b.build();
  }

  /**
   * A changelogged {@link DecodedStore}. The {@code large} stores (shard records, their outbox,
   * table shards) live in RocksDB, or in memory when {@code stores.in.memory} is set; the small
   * table outbox and table-demand stores are always in memory.
   *
   * @param capacity clean decoded values kept per store instance
   * @param scanned whether the stream thread scans the store by prefix
   */
  private static <V> StoreBuilder<?> store(
      StreamSettings s,
      String name,
      Serde<V> values,
      boolean large,
      int capacity,
      boolean scanned) {
    KeyValueBytesStoreSupplier supplier =
        s.inMemoryStores() || !large
            ? Stores.inMemoryKeyValueStore(name)
            : Stores.persistentKeyValueStore(name);
    return new DecodedStoreBuilder<>(supplier, values, capacity, WRITE_AFTER_MS, scanned);
  }
}
