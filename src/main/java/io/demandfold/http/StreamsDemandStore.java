package io.demandfold.http;

import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.mirror.MirrorMetrics.Kind;
import io.demandfold.stream.Names;
import io.demandfold.stream.PipelineMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * {@link DemandStore} over Kafka Streams interactive queries: shard records from this instance's
 * {@code shard-records} stores (keys {@code <hex>/<shard>}, partitioned by shard, so a target's
 * shards may live on several instances), table views from its {@code table-demand} stores
 * (partitioned by {@code <hex>}), the other instances from the {@code application.server} each
 * advertises.
 */
public final class StreamsDemandStore implements DemandStore {
  private static final StringSerializer KEYS = new StringSerializer();

  private final KafkaStreams streams;
  private final PipelineMetrics metrics;
  private final String self;

  /**
   * @param self this instance's {@code application.server}, {@code host:port}
   */
  public StreamsDemandStore(KafkaStreams streams, PipelineMetrics metrics, String self) {
    this.streams = Objects.requireNonNull(streams, "streams");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.self = Objects.requireNonNull(self, "self");
  }

  @Override
  public String self() {
    return self;
  }

  @Override
  public List<ShardRecord> shards(String hex) {
    return query(
        () -> {
          ReadOnlyKeyValueStore<String, ShardRecord> store =
              streams.store(
                  StoreQueryParameters.fromNameAndType(
                      Names.SHARD_RECORDS,
                      QueryableStoreTypes.<String, ShardRecord>keyValueStore()));
          List<ShardRecord> out = new ArrayList<>();
          try (KeyValueIterator<String, ShardRecord> it = store.prefixScan(hex + '/', KEYS)) {
            it.forEachRemaining(kv -> out.add(kv.value));
          }
          out.sort(java.util.Comparator.comparing(ShardRecord::shard, Keys.UTF8_ORDER));
          return out;
        },
        "read " + Names.SHARD_RECORDS);
  }

  @Override
  public List<TableEntry> tables() {
    return query(
        () -> {
          ReadOnlyKeyValueStore<String, io.demandfold.core.TableView> store =
              streams.store(
                  StoreQueryParameters.fromNameAndType(
                      Names.TABLE_DEMAND,
                      QueryableStoreTypes.<String, io.demandfold.core.TableView>keyValueStore()));
          List<TableEntry> out = new ArrayList<>();
          try (var it = store.all()) {
            it.forEachRemaining(kv -> out.add(new TableEntry(kv.key, kv.value)));
          }
          return out;
        },
        "read " + Names.TABLE_DEMAND);
  }

  @Override
  public List<String> peers() {
    List<String> out = new ArrayList<>();
    for (StreamsMetadata m : query(streams::metadataForAllStreamsClients, "list the instances")) {
      String hp = hostPort(m.hostInfo());
      if (m.hostInfo().port() >= 0 && !hp.equals(self) && !out.contains(hp)) {
        out.add(hp);
      }
    }
    return out;
  }

  @Override
  public Vitals vitals() {
    long[] folded = metrics.foldedCounts();
    return new Vitals(
        streams.state().name(),
        metrics.dlqTotal(),
        folded[0] + folded[1],
        metrics.dirtyKeys(Kind.SHARD),
        metrics.dirtyKeys(Kind.TABLE),
        metrics.lagSeconds(Kind.SHARD),
        metrics.lagSeconds(Kind.TABLE));
  }

  private <T> T query(Supplier<T> q, String what) {
    try {
      return q.get();
    } catch (InvalidStateStoreException | IllegalStateException e) {
      throw new StoreUnavailableException(
          "cannot " + what + " now (streams " + streams.state() + "): " + e.getMessage(), e);
    }
  }

  static String hostPort(HostInfo h) {
    return h.host().contains(":") ? "[" + h.host() + "]:" + h.port() : h.host() + ":" + h.port();
  }
}
