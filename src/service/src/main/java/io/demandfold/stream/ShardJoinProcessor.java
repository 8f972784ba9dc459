package io.demandfold.stream;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.HeapBytes;
import io.demandfold.mirror.LiveMirror;
import io.demandfold.mirror.MirrorLane;
import io.demandfold.mirror.RecordKind;
import io.demandfold.stream.Outbox.Dirty;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins each event into its shard's folded record (store {@code shard-records}, a {@link
 * DecodedStore}); a change marks the key dirty in the {@link Outbox} (store {@code shard-outbox})
 * and, while the stream is live, hands the new record to the instance's {@link LiveMirror} at once,
 * which writes it into etcd as soon as it has a call free (without waiting for a punctuation or a
 * commit of this thread).
 *
 * <p>Every {@code outbox.interval.ms} (wall clock) a punctuation emits changed keys downstream (the
 * shard-records topic and the table stage; each at most once per {@code emit.interval.ms}, or less
 * often while the fold lags, {@link Pacing}), settles the keys etcd acknowledged (removed from the
 * outbox in this transaction), and hands on the keys the mirror's byte budget refused (read back
 * from the store).
 *
 * <p>While the task catches up on the log (the events it folds are older than {@code
 * catchup.lag.ms} on average, or the first it folds is), a changed key is held in the outbox
 * ({@link Outbox#hold}): neither emitted nor written, however often it changes, so that each shard
 * is emitted and written about once for the whole catch-up instead of once per change. Once the
 * task is live again (or has folded nothing for {@link #IDLE_TICKS} ticks), or a key has been held
 * as long as the task is behind (at most {@code catchup.hold.max.ms}, {@link #holdMaxMs}), the held
 * keys go in passes in key order: each emitted and handed to the mirror, as many a tick as keep the
 * task's lane {@link #DRAIN_AHEAD} batches ahead of the mirror, so that it writes them in full
 * batches of neighbouring keys. A key dirty in memory when the catch-up began (in flight, say) is
 * emitted and handed once dirty for {@code catchup.interval.ms}.
 *
 * <p>Keys must be {@code <hex(target)>/<shard>} of the value ({@link Keys#requireMatch}); anything
 * else is rejected, and the processing exception handler sends it to the DLQ. An event on a
 * partition its key does not hash to is handed on as {@link ShardOut.Misrouted}, to be folded by
 * the task that owns its shard.
 */
final class ShardJoinProcessor implements Processor<String, DemandEvent, String, ShardOut> {
  private static final Logger log = LoggerFactory.getLogger(ShardJoinProcessor.class);

  /**
   * Ticks without an event after which a task counts as caught up: a busy stream thread may leave a
   * task without records for a tick or two in the middle of a catch-up.
   */
  static final int IDLE_TICKS = 5;

  /**
   * Most keys a punctuation hands on from the store (refused by the mirror's byte budget before, or
   * waiting out a catch-up), so that a tick stays short; the rest go at the next ticks.
   */
  static final int HAND_PER_TICK = 20_000;

  /** Full batches a task's lane holds while held keys go to the mirror. */
  static final int DRAIN_AHEAD = 32;

  private final StreamSettings settings;
  private final LiveMirror mirror;
  private final Pacing pacing;
  private final InputLag inputLag;
  private final List<String> topics;
  private final PipelineMetrics metrics;
  private ProcessorContext<String, ShardOut> context;
  private int partition;
  private KeyValueStore<String, ShardRecord> records;
  private Outbox outbox;
  private MirrorLane<ShardRecord> lane;
  private boolean catchingUp;
  private long lastGaugeMs;
  private long delaySumMs;
  private long delayCount;
  private long lastFoldMs;
  private int idleTicks;

  /**
   * Whether a tick has judged from the events folded since the task started or last was idle
   * whether it catches up; until then, its first event older than {@code catchup.lag.ms} says so.
   */
  private boolean judged;

  private boolean wasLogged;

  /** How far behind the task was when it last folded events: their mean delay over a tick. */
  private long behindMs;

  private long changed;
  private long unchanged;
  private long keys;
  private long folded;

  /**
   * @param mirror the instance's live mirror, or {@code null} when shard records are not mirrored
   */
  ShardJoinProcessor(
      StreamSettings settings,
      LiveMirror mirror,
      Pacing pacing,
      InputLag inputLag,
      PipelineMetrics metrics) {
    this.settings = settings;
    this.mirror = mirror;
    this.pacing = pacing;
    this.inputLag = inputLag;
    this.topics = List.of(settings.eventsTopic(), settings.misroutedTopic());
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, ShardOut> context) {
    this.context = context;
    this.partition = context.taskId().partition();
    this.records = context.getStateStore(Names.SHARD_RECORDS);
    this.outbox = new Outbox(context.getStateStore(Names.SHARD_OUTBOX), mirror != null);
    this.keys = records.approximateNumEntries();
    if (mirror != null) {
      if (lane != null) {
        // an init that failed before the task ran is retried on the same processor without a close
        mirror.remove(lane);
      }
      lane =
          mirror.lane(
              "shard records of task " + context.taskId(),
              RecordKind.SHARD,
              (keys, values) -> mirror.etcd().mirrorShards(keys, values));
      outbox.etcdRewindsAtStart(mirror.etcd().rewinds());
      if (outbox.unmirrored()) {
        // the fold changed while no instance mirrored this task: every record is written
        try (KeyValueIterator<String, ShardRecord> it = records.all()) {
          outbox.markAll(it, context.currentSystemTimeMs());
        }
      }
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
    long now = context.currentSystemTimeMs();
    lastFoldMs = now;
    long delay = now - record.timestamp();
    delaySumMs += delay;
    delayCount++;
    if (!judged && delay > settings.catchupLagMs()) {
      // a task that starts on old events catches up from its first one, not from the next tick
      catchingUp = true;
    }
    if ((++folded & 7) == 0) {
      metrics.foldDelay(delay);
    }
    ShardRecord stored = records.get(key);
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
    if (catchingUp) {
      outbox.hold(key, now);
    } else {
      Dirty d = outbox.mark(key, now);
      if (lane != null) {
        outbox.hand(d, lane, joined, HeapBytes.of(joined), now);
      }
    }
    changed++;
  }

  /**
   * Emits changed keys, settles the keys etcd acknowledged, hands on the keys not yet handed (every
   * one while live, those dirty for {@code catchup.interval.ms} while catching up), and lets go of
   * held keys once the task is live or they were held too long.
   */
  private void tick(long now) {
    metrics.folded(changed, unchanged);
    changed = 0;
    unchanged = 0;
    // idle: nothing folded for a few ticks and as long, so that a pause of the thread (one late
    // tick) is not taken for the end of a catch-up, and nothing left to fetch on its partitions (a
    // busy thread may hand it none of them for several polls)
    idleTicks = delayCount > 0 ? 0 : idleTicks + 1;
    boolean folding =
        idleTicks < IDLE_TICKS
            || now - lastFoldMs < IDLE_TICKS * settings.outboxIntervalMs()
            || inputLag.behind(topics, partition);
    // the pacing and the catch-up read how late the events folded since the last tick were on
    // average, not how long ago the newest event was produced (a task that keeps up with sparse
    // events is not lagging) nor the latest one (a pause of the thread or of the collector is not a
    // lag, one producer's late clock not a catch-up)
    long meanDelay = delayCount == 0 ? 0 : delaySumMs / delayCount;
    boolean was = catchingUp;
    if (!folding) {
      catchingUp = false;
      judged = false;
    } else if (delayCount > 0) {
      catchingUp = meanDelay > settings.catchupLagMs();
      judged = true;
      behindMs = meanDelay;
    }
    if (catchingUp != was || catchingUp && !wasLogged) {
      logCatchUp(was, folding, meanDelay);
    }
    pacing.observe(catchingUp ? 0 : meanDelay, now);
    delaySumMs = 0;
    delayCount = 0;
    long emitWait =
        catchingUp
            ? Math.max(settings.emitIntervalMs(), settings.catchupIntervalMs())
            : pacing.emitIntervalMs();
    for (Dirty d : outbox.takeToEmit(Integer.MAX_VALUE, now - emitWait)) {
      ShardRecord r = records.get(d.key);
      context.forward(new Record<>(d.key, new ShardChange(r, JsonCodec.encodeRecord(r)), now));
      outbox.emitted(d);
    }
    if (lane != null) {
      lane.drainAcks(outbox::acked);
      outbox.rewriteAllIfEtcdRewound(mirror.etcd().rewinds(), records::all, now);
      long notAfter = catchingUp ? now - settings.catchupIntervalMs() : now;
      outbox.handUnhanded(lane, HAND_PER_TICK, notAfter, now, records::get, HeapBytes::of);
    }
    if (!catchingUp || outbox.heldTooLong(now, holdMaxMs())) {
      releaseHeld(now);
    }
    if (now - lastGaugeMs >= 1000 || outbox.size() == 0) {
      metrics.outbox(RecordKind.SHARD, context.taskId(), outbox.waitingForEtcd());
      lastGaugeMs = now;
    }
  }

  /**
   * The longest a key is held now: as long as the task is behind (the mean delay of the events it
   * last folded), at least {@code catchup.interval.ms} and at most {@code catchup.hold.max.ms}. A
   * catch-up of hours holds its keys for the bound; a fold that stays tens of seconds behind a live
   * fleet (it takes itself for catching up once past {@code catchup.lag.ms}) holds them as long as
   * it is behind, so that etcd is never further behind than twice the fold.
   */
  long holdMaxMs() {
    return Math.min(settings.catchupHoldMaxMs(), Math.max(settings.catchupIntervalMs(), behindMs));
  }

  /** Logs when the task begins or ends a catch-up of the log: rare, and what explains a hold. */
  private void logCatchUp(boolean was, boolean folding, long meanDelay) {
    wasLogged = catchingUp;
    if (catchingUp) {
      log.info(
          "task {} catches up on the log (its events {} s old when folded): it holds the shards it"
              + " changes and writes each once it is live again, or after as long as it is behind"
              + " (at most {} s)",
          context.taskId(),
          meanDelay / 1000,
          settings.catchupHoldMaxMs() / 1000);
    } else if (was) {
      log.info(
          "task {} is {}: it lets go of the {} shards it held, in key order",
          context.taskId(),
          folding ? "live again (its events " + meanDelay + " ms old when folded)" : "idle",
          outbox.held());
    }
  }

  /**
   * Emits the next held keys in key order and hands them to the mirror: as many as keep the lane
   * {@link #DRAIN_AHEAD} full batches ahead of it (without a mirror, {@link #HAND_PER_TICK}).
   */
  private void releaseHeld(long now) {
    int room =
        lane == null
            ? HAND_PER_TICK
            : Math.min(HAND_PER_TICK, Math.max(0, DRAIN_AHEAD * mirror.batchKeys() - lane.size()));
    for (Dirty d : outbox.releaseHeld(room, now)) {
      ShardRecord r = records.get(d.key);
      context.forward(new Record<>(d.key, new ShardChange(r, JsonCodec.encodeRecord(r)), now));
      outbox.emitted(d);
      if (lane != null) {
        outbox.hand(d, lane, r, HeapBytes.of(r), now);
      }
    }
  }

  @Override
  public void close() {
    metrics.folded(changed, unchanged);
    if (lane != null) {
      mirror.remove(lane);
    }
    if (context != null) {
      metrics.outboxClosed(RecordKind.SHARD, context.taskId());
    }
  }
}
