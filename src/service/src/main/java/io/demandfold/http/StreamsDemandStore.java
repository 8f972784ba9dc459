package io.demandfold.http;

import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import io.demandfold.mirror.RecordKind;
import io.demandfold.stream.Names;
import io.demandfold.stream.PipelineMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
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
  private final KafkaStreams streams;
  private final PipelineMetrics metrics;
  private final String self;
  private final String eventsTopic;

  /**
   * @param self this instance's {@code application.server}, {@code host:port}
   * @param eventsTopic the events topic: its partitions are the shard stage's tasks
   */
  public StreamsDemandStore(
      KafkaStreams streams, PipelineMetrics metrics, String self, String eventsTopic) {
    this.streams = Objects.requireNonNull(streams, "streams");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.self = Objects.requireNonNull(self, "self");
    this.eventsTopic = Objects.requireNonNull(eventsTopic, "eventsTopic");
  }

  @Override
  public String self() {
    return self;
  }

  @Override
  public List<ShardRecord> shards(String hex, String after, int limit) {
    return query(
        () -> {
          // a store over every local task would go through them one after the other, each in key
          // order but not all together: take the first of each task's store, then merge
          TreeMap<String, ShardRecord> merged = new TreeMap<>(Keys.UTF8_ORDER);
          // keys sort by their UTF-8 bytes: <hex>/ then the shard; <hex>0 is past every one of
          // them and no key (every key has a '/' after its hex)
          String from = hex + '/' + (after == null ? "" : after);
          for (int partition : localShardPartitions()) {
            ReadOnlyKeyValueStore<String, ShardRecord> store =
                streams.store(
                    StoreQueryParameters.fromNameAndType(
                            Names.SHARD_RECORDS,
                            QueryableStoreTypes.<String, ShardRecord>keyValueStore())
                        .withPartition(partition));
            int taken = 0;
            try (KeyValueIterator<String, ShardRecord> it = store.range(from, hex + '0')) {
              while (it.hasNext() && taken < limit) {
                ShardRecord r = it.next().value;
                if (after == null || Keys.UTF8_ORDER.compare(r.shard(), after) > 0) {
                  merged.put(r.shard(), r);
                  taken++;
                }
              }
            }
          }
          return merged.values().stream().limit(limit).toList();
        },
        "read " + Names.SHARD_RECORDS);
  }

  /** The partitions of the events topic whose shard tasks run here. */
  private Set<Integer> localShardPartitions() {
    Set<Integer> out = new TreeSet<>();
    for (ThreadMetadata t : streams.metadataForLocalThreads()) {
      for (TaskMetadata task : t.activeTasks()) {
        for (TopicPartition tp : task.topicPartitions()) {
          if (tp.topic().equals(eventsTopic)) {
            out.add(tp.partition());
          }
        }
      }
    }
    return out;
  }

  @Override
  public TableView table(String hex) {
    return query(() -> tableStore().get(hex), "read " + Names.TABLE_DEMAND);
  }

  private ReadOnlyKeyValueStore<String, TableView> tableStore() {
    return streams.store(
        StoreQueryParameters.fromNameAndType(
            Names.TABLE_DEMAND, QueryableStoreTypes.<String, TableView>keyValueStore()));
  }

  @Override
  public List<TableEntry> tables() {
    return query(
        () -> {
          ReadOnlyKeyValueStore<String, TableView> store = tableStore();
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
    return new Vitals(
        streams.state().name(),
        metrics.dlqTotal(),
        metrics.foldedCounts().total(),
        metrics.dirtyKeys(RecordKind.SHARD),
        metrics.dirtyKeys(RecordKind.TABLE),
        metrics.lagSeconds(RecordKind.SHARD),
        metrics.lagSeconds(RecordKind.TABLE));
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
