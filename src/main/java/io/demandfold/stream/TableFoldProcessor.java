package io.demandfold.stream;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.RecordKind;
import io.demandfold.stream.Outbox.Dirty;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Folds the shard summaries of each target (repartitioned by {@code <hex(target)>}) into the table
 * view (docs/model.md section 7). Each shard's table entry is kept per {@code <hex>/<shard>} in
 * {@code table-shards} (joined, so a late or repeated summary changes nothing); a change marks the
 * target in {@code table-outbox}. Every {@code table.interval.ms}, or sooner once no shard has
 * changed for two emit intervals, the view of every changed target is computed from its entries,
 * stored in {@code table-demand}, emitted downstream and, when tables are mirrored, joined into
 * etcd as a {@link TableRecord} of those entries. Entries of recent targets are kept in a bounded
 * {@link TargetCache}.
 */
final class TableFoldProcessor implements Processor<String, ShardSummary, String, byte[]> {
  private static final StringSerializer KEYS = new StringSerializer();

  private final StreamSettings settings;
  private final EtcdMirror mirror;
  private final PipelineMetrics metrics;
  private ProcessorContext<String, byte[]> context;
  private KeyValueStore<String, TableShard> shards;
  private KeyValueStore<String, TableView> views;
  private Outbox<Void> outbox;
  private MirrorDrain<Void> drain;
  private TargetCache<TableShard> cache;
  private final Map<String, Integer> shardCounts = new HashMap<>();
  private long lastGaugeMs;
  private long lastChangeMs;
  private long lastFlushMs;
  private boolean flushing;
  private final long quietMs;

  TableFoldProcessor(StreamSettings settings, EtcdMirror mirror, PipelineMetrics metrics) {
    this.settings = settings;
    this.mirror = mirror;
    this.metrics = metrics;
    this.quietMs = 2 * settings.emitIntervalMs();
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
    this.shards = context.getStateStore(Names.TABLE_SHARDS);
    this.views = context.getStateStore(Names.TABLE_DEMAND);
    this.outbox = new Outbox<>(context.getStateStore(Names.TABLE_OUTBOX), mirror != null);
    this.cache = new TargetCache<>(settings.tableCacheShards());
    if (mirror != null) {
      drain =
          new MirrorDrain<>(
              "table records of task " + context.taskId(),
              outbox,
              settings.mirrorConcurrency(),
              1,
              keys -> keys.stream().map(d -> mirrorTarget(d.key)).toList());
    }
    lastFlushMs = context.currentSystemTimeMs();
    context.schedule(
        Duration.ofMillis(settings.outboxIntervalMs()),
        PunctuationType.WALL_CLOCK_TIME,
        this::tick);
  }

  @Override
  public void process(Record<String, ShardSummary> record) {
    String hex = record.key();
    ShardSummary incoming = record.value();
    String key = hex + '/' + incoming.shard();
    TableShard stored = cache.holds(hex) ? cache.peek(hex, incoming.shard()) : shards.get(key);
    if (stored == null) {
      int n = shardCount(hex);
      if (n >= settings.shardsPerTarget()) {
        throw new InvalidEventException(
            InvalidEventException.Reason.TOO_MANY_SHARDS,
            "target '"
                + Keys.abbreviate(Keys.unhex(hex))
                + "' has "
                + n
                + " shards in its table already (limits.shards.per.target="
                + settings.shardsPerTarget()
                + "); shard '"
                + Keys.abbreviate(incoming.shard())
                + "' is left out of it");
      }
      shardCounts.put(hex, n + 1);
    }
    TableShard joined = stored == null ? incoming.entry() : stored.join(incoming.entry());
    if (joined == stored) {
      return;
    }
    shards.put(key, joined);
    cache.update(hex, incoming.shard(), joined);
    lastChangeMs = context.currentSystemTimeMs();
    outbox.mark(hex, null, lastChangeMs);
  }

  /** The table entries of {@code hex}, by shard. */
  private Map<String, TableShard> shardsOf(String hex) {
    return cache.get(hex, this::scan);
  }

  /** How many shards {@code hex} has in this task's table stage, counted once, then kept. */
  private int shardCount(String hex) {
    Integer n = shardCounts.get(hex);
    if (n == null) {
      n = cache.holds(hex) ? cache.size(hex) : visit(hex, e -> {});
      shardCounts.put(hex, n);
    }
    return n;
  }

  /** The table view of {@code hex}, read shard by shard when it is too large to hold. */
  private TableView viewOf(String hex) {
    if (cache.holds(hex) || shardCount(hex) <= settings.tableCacheShards()) {
      return TableView.ofEntries(shardsOf(hex).values());
    }
    TableView.Accumulator acc = new TableView.Accumulator();
    visit(hex, e -> acc.add(e.sealedBytes(), e.view()));
    return acc.view();
  }

  /**
   * Writes {@code hex}'s table record; one with more shards than a request can carry even compact
   * is written with its derived fields only, without building it.
   */
  private CompletableFuture<MirrorOutcome> mirrorTarget(String hex) {
    if (shardCount(hex) > mirror.tableEntriesThatMayFit()) {
      return mirror.mirrorTableView(hex, viewOf(hex));
    }
    return mirror.mirrorTable(hex, new TableRecord(shardsOf(hex), 0, 0));
  }

  /** Hands each table entry of {@code hex} to {@code visitor} as the store yields it. */
  private int visit(String hex, Consumer<TableShard> visitor) {
    int n = 0;
    try (KeyValueIterator<String, TableShard> it = shards.prefixScan(hex + '/', KEYS)) {
      while (it.hasNext()) {
        visitor.accept(it.next().value);
        n++;
      }
    }
    return n;
  }

  private Map<String, TableShard> scan(String hex) {
    Map<String, TableShard> out = new HashMap<>();
    try (KeyValueIterator<String, TableShard> it = shards.prefixScan(hex + '/', KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, TableShard> kv = it.next();
        out.put(kv.key.substring(hex.length() + 1), kv.value);
      }
    }
    return out;
  }

  /**
   * Every {@code outbox.interval.ms}: every {@code table.interval.ms}, or once no shard has changed
   * for two emit intervals, emits the changed tables and starts writing them, and any whose last
   * write failed, to etcd; applies finished etcd calls and starts calls while a flush has tables
   * left to write.
   */
  private void tick(long now) {
    boolean changed = outbox.changedSinceEmit();
    if (now - lastFlushMs >= settings.tableIntervalMs()
        || (changed && now - lastChangeMs >= quietMs)) {
      for (Dirty<Void> d : outbox.takeToEmit(Integer.MAX_VALUE, now)) {
        TableView view = viewOf(d.key);
        views.put(d.key, view);
        context.forward(
            new Record<>(
                d.key,
                ViewJson.tableLine(Keys.unhex(d.key), view).getBytes(StandardCharsets.UTF_8),
                now));
        outbox.emitted(d);
      }
      lastFlushMs = now;
      // tables that changed, and those whose last write failed, are written now
      flushing = outbox.size() > 0;
    }
    if (drain != null) {
      drain.applyCompletions(now);
      if (flushing) {
        int free = drain.freeKeys(now);
        List<Dirty<Void>> keys = outbox.takeToMirror(free, now);
        drain.start(keys);
        flushing = keys.size() == free;
      }
    }
    if (now - lastGaugeMs >= 1000 || outbox.size() == 0) {
      metrics.outbox(RecordKind.TABLE, context.taskId(), outbox.size(), outbox.oldestSinceMs());
      lastGaugeMs = now;
    }
  }

  @Override
  public void close() {
    if (drain != null) {
      drain.close();
    }
    if (context != null) {
      metrics.outboxClosed(RecordKind.TABLE, context.taskId());
    }
  }
}
