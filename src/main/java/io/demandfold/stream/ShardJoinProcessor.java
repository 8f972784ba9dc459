package io.demandfold.stream;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.RecordKind;
import io.demandfold.stream.Outbox.Dirty;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Joins each event into its shard's folded record (store {@code shard-records}, a {@link
 * DecodedStore}); a change marks the key dirty in the {@link Outbox} (store {@code shard-outbox})
 * with the new record. Nothing else happens per event.
 *
 * <p>Every {@code outbox.interval.ms} (wall clock) a punctuation hands dirty keys on, oldest change
 * first: each is emitted downstream (the shard-records topic and the table stage) with its record
 * and its JSON, encoded once, and mirrored into etcd by a {@link MirrorDrain}. While the stream is
 * live every dirty key goes at once; while the task folds events older than {@code catchup.lag.ms}
 * (a catch-up of the log), a key goes on only once it has been dirty for {@code
 * catchup.interval.ms}, so each shard is written a few times during a catch-up instead of every
 * tick, and once the task has folded nothing for {@link #IDLE_TICKS} ticks everything goes at once.
 *
 * <p>Keys must be {@code <hex(target)>/<shard>} of the value ({@link Keys#requireMatch}); anything
 * else is rejected, and the processing exception handler sends it to the DLQ. An event on a
 * partition its key does not hash to is handed on as {@link ShardOut.Misrouted}, to be folded by
 * the task that owns its shard.
 */
final class ShardJoinProcessor implements Processor<String, DemandEvent, String, ShardOut> {
  /**
   * Ticks without an event after which a task counts as caught up: a busy stream thread may leave a
   * task without records for a tick or two in the middle of a catch-up.
   */
  static final int IDLE_TICKS = 5;

  private final StreamSettings settings;
  private final EtcdMirror mirror;
  private final PipelineMetrics metrics;
  private ProcessorContext<String, ShardOut> context;
  private int partition;
  private KeyValueStore<String, ShardRecord> records;
  private Outbox<ShardRecord> outbox;
  private MirrorDrain<ShardRecord> drain;
  private long lastGaugeMs;
  private long lastEventTimestamp = Long.MAX_VALUE;
  private long lastFoldMs;
  private long changed;
  private long unchanged;
  private long keys;

  ShardJoinProcessor(StreamSettings settings, EtcdMirror mirror, PipelineMetrics metrics) {
    this.settings = settings;
    this.mirror = mirror;
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, ShardOut> context) {
    this.context = context;
    this.partition = context.taskId().partition();
    this.records = context.getStateStore(Names.SHARD_RECORDS);
    this.outbox = new Outbox<>(context.getStateStore(Names.SHARD_OUTBOX), mirror != null);
    this.keys = records.approximateNumEntries();
    if (mirror != null) {
      drain =
          new MirrorDrain<>(
              "shard records of task " + context.taskId(),
              outbox,
              settings.mirrorConcurrency(),
              settings.mirrorBatchKeys(),
              this::mirror);
    }
    context.schedule(
        Duration.ofMillis(settings.outboxIntervalMs()),
        PunctuationType.WALL_CLOCK_TIME,
        this::tick);
  }

  @Override
  public void process(Record<String, DemandEvent> record) {
    String key = record.key();
    DemandEvent event = record.value();
    Keys.requireMatch(key, event);
    int partitions = settings.eventsPartitions();
    if (partitions > 1 && Keys.partition(key, partitions) != partition) {
      metrics.misrouted();
      context.forward(record.withValue(new ShardOut.Misrouted(event)));
      return;
    }
    lastEventTimestamp = record.timestamp();
    lastFoldMs = context.currentSystemTimeMs();
    // a dirty key's latest record is at hand in the outbox: one lookup instead of two
    Dirty<ShardRecord> dirty = outbox.get(key);
    ShardRecord stored = dirty != null && dirty.value != null ? dirty.value : records.get(key);
    if (stored == null && keys >= settings.keysPerTask()) {
      throw new InvalidEventException(
          InvalidEventException.Reason.TOO_MANY_KEYS,
          "task "
              + context.taskId()
              + " folds "
              + keys
              + " shards already (limits.keys.per.task="
              + settings.keysPerTask()
              + ")");
    }
    ShardRecord joined = Join.join(stored, event.record());
    if (stored == null) {
      keys++;
    }
    if (joined == stored) {
      unchanged++;
      return;
    }
    records.put(key, joined);
    outbox.mark(key, joined, context.currentSystemTimeMs());
    changed++;
  }

  /**
   * Emits and mirrors dirty keys: every one while live, those dirty for {@code catchup.interval.ms}
   * while catching up.
   */
  private void tick(long now) {
    metrics.folded(changed, unchanged);
    changed = 0;
    unchanged = 0;
    boolean catchingUp =
        now - lastFoldMs < IDLE_TICKS * settings.outboxIntervalMs()
            && now - lastEventTimestamp > settings.catchupLagMs();
    long notAfter = catchingUp ? now - settings.catchupIntervalMs() : now;
    long emitWait = settings.emitIntervalMs();
    if (catchingUp) {
      emitWait = Math.max(emitWait, settings.catchupIntervalMs());
    }
    for (Dirty<ShardRecord> d : outbox.takeToEmit(Integer.MAX_VALUE, now - emitWait)) {
      context.forward(new Record<>(d.key, change(d), now));
      outbox.emitted(d);
    }
    if (drain != null) {
      drain.applyCompletions(now);
      drain.start(outbox.takeToMirror(drain.freeKeys(now), notAfter));
    }
    if (now - lastGaugeMs >= 1000 || outbox.size() == 0) {
      metrics.outbox(RecordKind.SHARD, context.taskId(), outbox.size(), outbox.oldestSinceMs());
      lastGaugeMs = now;
    }
  }

  /** The record and JSON of a dirty key, read back from the store after a restore. */
  private ShardChange change(Dirty<ShardRecord> d) {
    if (d.value == null) {
      d.value = records.get(d.key);
    }
    if (d.encoded == null) {
      d.encoded = JsonCodec.encodeRecord(d.value);
    }
    return new ShardChange(d.value, d.encoded);
  }

  private List<java.util.concurrent.CompletableFuture<io.demandfold.mirror.MirrorOutcome>> mirror(
      List<Dirty<ShardRecord>> keys) {
    List<String> shardKeys = new ArrayList<>(keys.size());
    List<ShardChange> changes = new ArrayList<>(keys.size());
    for (Dirty<ShardRecord> d : keys) {
      shardKeys.add(d.key);
      changes.add(change(d));
    }
    return mirror.mirrorShards(
        shardKeys,
        changes.stream().map(ShardChange::record).toList(),
        changes.stream().map(ShardChange::json).toList());
  }

  @Override
  public void close() {
    metrics.folded(changed, unchanged);
    if (drain != null) {
      drain.close();
    }
    if (context != null) {
      metrics.outboxClosed(RecordKind.SHARD, context.taskId());
    }
  }
}
