package io.demandfold.stream;

import io.demandfold.core.DerivedTable;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.TableTally;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.HeapBytes;
import io.demandfold.mirror.LiveMirror;
import io.demandfold.mirror.MirrorLane;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.RecordKind;
import io.demandfold.stream.Outbox.Dirty;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * stored in {@code table-demand}, emitted downstream and, when tables are mirrored, handed to the
 * instance's {@link LiveMirror} as a {@link TableRecord} of those entries, to be joined into etcd.
 * Entries of recent targets are kept in a bounded {@link TargetCache}, shard counts of recent
 * targets in a bounded map (a target it forgot is counted again from the store).
 *
 * <p>The view of a target is kept up to date as its entries change ({@link TableTally}, in a map
 * bounded by {@link #TALLIES} targets): a tick reads a target's entries again only when its tally
 * is not known (the shard holding its oldest pending time moved on, or the tally was forgotten or
 * never made since the task started), so the table stage's work per tick follows the shards that
 * changed, not the shards their targets have.
 */
final class TableFoldProcessor implements Processor<String, ShardSummary, String, byte[]> {
  private static final StringSerializer KEYS = new StringSerializer();

  /** Targets whose shard count a task remembers; the least recently used are counted again. */
  static final int SHARD_COUNTS = 10_000;

  /** Targets whose view a task keeps up to date (~200 bytes each); the others are counted again. */
  static final int TALLIES = 10_000;

  private final StreamSettings settings;
  private final LiveMirror mirror;
  private final Pacing pacing;
  private final PipelineMetrics metrics;
  private ProcessorContext<String, byte[]> context;
  private KeyValueStore<String, TableShard> shards;
  private KeyValueStore<String, TableView> views;
  private Outbox outbox;
  private MirrorLane<Object> lane;
  private TargetCache<TableShard> cache;
  private final Map<String, Integer> shardCounts =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
          return size() > SHARD_COUNTS;
        }
      };
  private final Map<String, TableTally> tallies =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TableTally> eldest) {
          return size() > TALLIES;
        }
      };
  private long lastGaugeMs;
  private long lastChangeMs;
  private long lastFlushMs;
  private final long quietMs;

  /**
   * @param mirror the instance's live mirror, or {@code null} when table records are not mirrored
   */
  TableFoldProcessor(
      StreamSettings settings, LiveMirror mirror, Pacing pacing, PipelineMetrics metrics) {
    this.settings = settings;
    this.mirror = mirror;
    this.pacing = pacing;
    this.metrics = metrics;
    this.quietMs = 2 * settings.emitIntervalMs();
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
    this.shards = context.getStateStore(Names.TABLE_SHARDS);
    this.views = context.getStateStore(Names.TABLE_DEMAND);
    this.outbox = new Outbox(context.getStateStore(Names.TABLE_OUTBOX), mirror != null);
    this.cache = new TargetCache<>(settings.tableCacheShards(), metrics::tableCacheEvicted);
    // tallies and counts hold what the stores held when they were made: a task initialised again
    // starts anew
    tallies.clear();
    shardCounts.clear();
    if (mirror != null) {
      if (lane != null) {
        // an init that failed before the task ran is retried on the same processor without a close
        mirror.remove(lane);
      }
      lane =
          mirror.lane(
              "table records of task " + context.taskId(),
              RecordKind.TABLE,
              (keys, values) -> {
                List<CompletableFuture<MirrorOutcome>> out = new ArrayList<>(keys.size());
                for (int i = 0; i < keys.size(); i++) {
                  out.add(mirrorTarget(keys.get(i), values.get(i)));
                }
                return out;
              });
      outbox.etcdRewindsAtStart(mirror.etcd().rewinds());
      if (outbox.unmirrored()) {
        // the fold changed while no instance mirrored this task: every table is written
        try (KeyValueIterator<String, TableView> it = views.all()) {
          outbox.markAll(it, context.currentSystemTimeMs());
        }
      }
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
    TableTally tally = tallies.get(hex);
    if (tally != null && !tally.change(stored, joined)) {
      tallies.remove(hex);
    }
    lastChangeMs = context.currentSystemTimeMs();
    outbox.mark(hex, lastChangeMs);
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

  /** The table view of {@code hex} ({@link #tallyOf}). */
  private TableView viewOf(String hex) {
    return tallyOf(hex).view();
  }

  /**
   * The tally of {@code hex}: the known one, else one counted from its entries (read shard by shard
   * when they are too many to hold).
   */
  private TableTally tallyOf(String hex) {
    TableTally tally = tallies.get(hex);
    if (tally != null) {
      return tally;
    }
    TableTally counted = new TableTally();
    if (cache.holds(hex) || shardCount(hex) <= settings.tableCacheShards()) {
      shardsOf(hex).values().forEach(counted::add);
    } else {
      visit(hex, counted::add);
    }
    tallies.put(hex, counted);
    return counted;
  }

  /**
   * What the mirror writes for {@code hex}: its table record, or for a target with more shards than
   * a request can carry even compact its view and progress alone (the record is then not built).
   */
  private Object payloadOf(String hex) {
    if (shardCount(hex) > mirror.etcd().tableEntriesThatMayFit()) {
      TableTally tally = tallyOf(hex);
      return new DerivedTable(tally.view(), tally.progress());
    }
    return new TableRecord(shardsOf(hex), 0, 0);
  }

  /** Writes {@code hex}'s table record or, for a large target, its derived fields alone. */
  private CompletableFuture<MirrorOutcome> mirrorTarget(String hex, Object payload) {
    return payload instanceof DerivedTable d
        ? mirror.etcd().mirrorTableView(hex, d)
        : mirror.etcd().mirrorTable(hex, (TableRecord) payload);
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
   * Every {@code outbox.interval.ms}: takes back the tables held after a restore or a loss of etcd;
   * every {@code table.interval.ms}, or once no shard has changed for two emit intervals, emits the
   * changed tables; hands the tables changed before the last such flush to the mirror (those its
   * byte budget refused at the next ticks), and settles those etcd acknowledged.
   */
  private void tick(long now) {
    for (Dirty d : outbox.releaseHeld(ShardJoinProcessor.HAND_PER_TICK, now)) {
      outbox.emitLater(d, now);
    }
    boolean changed = outbox.changedSinceEmit();
    // a paced shard stage emits less often: the tables follow it
    long interval = Math.max(settings.tableIntervalMs(), pacing.emitIntervalMs());
    if (now - lastFlushMs >= interval || (changed && now - lastChangeMs >= quietMs)) {
      for (Dirty d : outbox.takeToEmit(Integer.MAX_VALUE, now)) {
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
    }
    if (lane != null) {
      lane.drainAcks(outbox::acked);
      outbox.rewriteAllIfEtcdRewound(mirror.etcd().rewinds(), views::all, now);
      outbox.handUnhanded(
          lane, ShardJoinProcessor.HAND_PER_TICK, lastFlushMs, now, this::payloadOf, HeapBytes::of);
    }
    if (now - lastGaugeMs >= 1000 || outbox.size() == 0) {
      metrics.outbox(RecordKind.TABLE, context.taskId(), outbox.waitingForEtcd());
      lastGaugeMs = now;
    }
  }

  @Override
  public void close() {
    if (lane != null) {
      mirror.remove(lane);
    }
    if (context != null) {
      metrics.outboxClosed(RecordKind.TABLE, context.taskId());
    }
  }
}
