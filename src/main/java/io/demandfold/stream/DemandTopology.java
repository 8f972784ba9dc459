package io.demandfold.stream;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.EtcdMirror;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
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
 * events-source (demand.events; bad keys/values: DLQ)
 *   -&gt; shard-join [shard-records, shard-outbox]   (join per key; outbox: emit + etcd)
 *        -&gt; shard-view -&gt; shard-records-sink (demand.shard-records)
 *        -&gt; target-key -&gt; by-target (repartition by hex(target))
 *             -&gt; table-fold [table-shards, table-demand, table-outbox] (table view; outbox)
 *                  -&gt; table-demand-sink (demand.table-demand)
 * </pre>
 *
 * Every processor, store and internal topic is named here: see {@link Names}.
 */
public final class DemandTopology {
  private DemandTopology() {}

  /**
   * @param mirror where to mirror, or {@code null} for no etcd at all
   */
  public static Topology build(StreamSettings s, EtcdMirror mirror, PipelineMetrics metrics) {
    StreamsBuilder b = new StreamsBuilder();
    Serde<String> strings = org.apache.kafka.common.serialization.Serdes.String();
    Serde<ShardRecord> records = Serdes.shardRecord();
    b.addStateStore(store(s, Names.SHARD_RECORDS, records, true));
    b.addStateStore(store(s, Names.SHARD_OUTBOX, Serdes.dirtySince(), false));
    b.addStateStore(store(s, Names.TABLE_SHARDS, records, true));
    b.addStateStore(store(s, Names.TABLE_DEMAND, Serdes.tableView(), false));
    b.addStateStore(store(s, Names.TABLE_OUTBOX, Serdes.dirtySince(), false));

    EtcdMirror shardMirror = s.mirrorShards() ? mirror : null;
    EtcdMirror tableMirror = s.mirrorTables() ? mirror : null;

    KStream<String, DemandEvent> events =
        b.stream(
            s.eventsTopic(),
            Consumed.with(Serdes.eventKey(), Serdes.event()).withName(Names.EVENTS_SOURCE));
    KStream<String, ShardRecord> changed =
        events.process(
            () -> new ShardJoinProcessor(s, shardMirror, metrics),
            Named.as(Names.SHARD_JOIN),
            Names.SHARD_RECORDS,
            Names.SHARD_OUTBOX);
    changed
        .mapValues(
            (key, record) -> ViewJson.shardLine(Keys.parse(key).target(), record),
            Named.as(Names.SHARD_VIEW))
        .to(
            s.shardRecordsTopic(),
            Produced.with(strings, strings).withName(Names.SHARD_RECORDS_SINK));
    changed
        .selectKey((key, record) -> key.substring(0, key.indexOf('/')), Named.as(Names.TARGET_KEY))
        .repartition(Repartitioned.with(strings, records).withName(Names.BY_TARGET))
        .process(
            () -> new TableFoldProcessor(s, tableMirror, metrics),
            Named.as(Names.TABLE_FOLD),
            Names.TABLE_SHARDS,
            Names.TABLE_DEMAND,
            Names.TABLE_OUTBOX)
        .to(
            s.tableDemandTopic(),
            Produced.with(strings, strings).withName(Names.TABLE_DEMAND_SINK));
    return b.build();
  }

  /**
   * A changelogged key-value store; {@code cached} stores coalesce their changelog writes until the
   * commit. Outbox and view stores are small and stay in memory unless RocksDB is asked for.
   */
  private static <V> StoreBuilder<?> store(
      StreamSettings s, String name, Serde<V> values, boolean cached) {
    KeyValueBytesStoreSupplier supplier =
        s.inMemoryStores() || !cached
            ? Stores.inMemoryKeyValueStore(name)
            : Stores.persistentKeyValueStore(name);
    StoreBuilder<?> builder =
        Stores.keyValueStoreBuilder(
            supplier, org.apache.kafka.common.serialization.Serdes.String(), values);
    return cached ? builder.withCachingEnabled() : builder;
  }
}
