package io.demandfold.stream;

import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics.Kind;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Folds the changed shard records of each target (repartitioned by {@code <hex(target)>}) into the
 * table view (spec section 7). Shard records are kept per {@code <hex>/<shard>} in {@code
 * table-shards}; a change marks the target in {@code table-outbox}. Every {@code table.interval.ms}
 * (tables aggregate many shards, so they are coalesced longer than shard records), or sooner once
 * no shard has changed for two emit intervals, the view of every changed target is computed from
 * its shards, stored in {@code table-demand}, emitted downstream and, when tables are mirrored,
 * joined into etcd. Decoded shard records of recent targets are kept in a bounded {@link
 * TargetCache}.
 */
final class TableFoldProcessor implements Processor<String, ShardRecord, String, String> {
  private static final StringSerializer KEYS = new StringSerializer();

  private final StreamSettings settings;
  private final EtcdMirror mirror;
  private final PipelineMetrics metrics;
  private ProcessorContext<String, String> context;
  private KeyValueStore<String, ShardRecord> shards;
  private KeyValueStore<String, TableView> views;
  private Outbox outbox;
  private MirrorDrain drain;
  private TargetCache cache;
  private long lastGaugeMs;
  private long lastChangeMs;
  private boolean flushing;
  private final long quietMs;

  TableFoldProcessor(StreamSettings settings, EtcdMirror mirror, PipelineMetrics metrics) {
    this.settings = settings;
    this.mirror = mirror;
    this.metrics = metrics;
    this.quietMs = 2 * settings.emitIntervalMs();
  }

  @Override
  public void init(ProcessorContext<String, String> context) {
    this.context = context;
    this.shards = context.getStateStore(Names.TABLE_SHARDS);
    this.views = context.getStateStore(Names.TABLE_DEMAND);
    this.outbox = new Outbox(context.getStateStore(Names.TABLE_OUTBOX), mirror != null);
    this.cache = new TargetCache(settings.tableCacheShards());
    if (mirror != null) {
      drain =
          new MirrorDrain(
              "table records of task " + context.taskId(),
              outbox,
              settings.mirrorConcurrency(),
              1,
              MirrorDrain.oneByOne(
                  hex -> mirror.mirrorTable(hex, TableRecord.of(shardsOf(hex).values()))));
    }
    context.schedule(
        Duration.ofMillis(settings.tableIntervalMs()),
        PunctuationType.WALL_CLOCK_TIME,
        this::flush);
    context.schedule(
        Duration.ofMillis(settings.outboxIntervalMs()),
        PunctuationType.WALL_CLOCK_TIME,
        this::tick);
  }

  @Override
  public void process(Record<String, ShardRecord> record) {
    String hex = record.key();
    ShardRecord incoming = record.value();
    String key = hex + '/' + incoming.shard();
    ShardRecord stored = cache.holds(hex) ? cache.peek(hex, incoming.shard()) : shards.get(key);
    ShardRecord joined = Join.join(stored, incoming);
    if (joined == stored) {
      return;
    }
    shards.put(key, joined);
    cache.update(hex, joined);
    lastChangeMs = context.currentSystemTimeMs();
    outbox.mark(hex, lastChangeMs);
  }

  /** The folded shard records of {@code hex}, by shard. */
  private Map<String, ShardRecord> shardsOf(String hex) {
    return cache.get(hex, this::scan);
  }

  private Map<String, ShardRecord> scan(String hex) {
    Map<String, ShardRecord> out = new HashMap<>();
    try (KeyValueIterator<String, ShardRecord> it = shards.prefixScan(hex + '/', KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, ShardRecord> kv = it.next();
        out.put(kv.value.shard(), kv.value);
      }
    }
    return out;
  }

  /** Every {@code table.interval.ms}: emits the changed tables and starts writing them to etcd. */
  private void flush(long timestamp) {
    emit(timestamp);
    flushing = true;
  }

  /**
   * Every {@code outbox.interval.ms}: flushes early once no shard has changed for two emit
   * intervals (the stream went quiet, nothing more to coalesce), applies finished etcd calls, and
   * starts calls while a flush has tables left to write.
   */
  private void tick(long timestamp) {
    if (outbox.changedSinceEmit() && timestamp - lastChangeMs >= quietMs) {
      flush(timestamp);
    }
    if (drain != null) {
      drain.applyCompletions(timestamp);
      if (flushing) {
        flushing = !drain.startCalls(timestamp);
      }
    }
    if (timestamp - lastGaugeMs >= 1000 || outbox.size() == 0) {
      metrics.outbox(Kind.TABLE, context.taskId(), outbox.size(), outbox.oldestSinceMs());
      lastGaugeMs = timestamp;
    }
  }

  private void emit(long timestamp) {
    outbox.emit(
        hex -> {
          TableView view = TableView.of(shardsOf(hex).values());
          views.put(hex, view);
          context.forward(new Record<>(hex, ViewJson.tableLine(Keys.unhex(hex), view), timestamp));
        });
  }

  @Override
  public void close() {
    if (drain != null) {
      drain.close();
    }
    if (context != null) {
      metrics.outboxClosed(Kind.TABLE, context.taskId());
    }
  }
}
