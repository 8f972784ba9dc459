package io.demandfold.stream;

import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.mirror.LatencyTimers;
import io.demandfold.mirror.LiveMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.RecordKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pipeline's meters, registered once per application and shared by every task:
 *
 * <ul>
 *   <li>{@code demandfold_events_folded_total{result=changed|unchanged}};
 *   <li>{@code demandfold_dlq_total{reason}};
 *   <li>{@code demandfold_dlq_truncated_total}: dead-letter records cut to fit the DLQ topic;
 *   <li>{@code demandfold_dlq_dropped_total}: dead-letter records the producer or the broker
 *       refused, dropped by {@link DlqProductionHandler};
 *   <li>{@code demandfold_stream_threads_replaced_total}: stream threads replaced after a transient
 *       failure;
 *   <li>{@code demandfold_table_cache_evictions_total}: targets the table stage dropped from its
 *       cache of table entries to stay within {@code table.cache.shards};
 *   <li>{@code demandfold_mirror_dirty_keys{kind}}: keys whose latest change etcd has not
 *       acknowledged (waiting for etcd, not for the output topics);
 *   <li>{@code demandfold_mirror_lag_seconds{kind}}: age of the oldest such change;
 *   <li>the {@link MirrorMetrics} counters, and the live mirror's gauges ({@link #bind}).
 * </ul>
 */
public final class PipelineMetrics {
  /** Config key under which the handlers find this object among the streams configs. */
  public static final String CONFIG_KEY = "demandfold.pipeline.metrics";

  private final MeterRegistry registry;
  private final MirrorMetrics mirror;
  private final Counter changed;
  private final Counter unchanged;
  private final Map<Reason, Counter> dlq = new EnumMap<>(Reason.class);
  private final Counter dlqTruncated;
  private final Counter misrouted;
  private final Counter dlqDropped;
  private final Counter threadsReplaced;
  private final Counter tableCacheEvictions;
  private final io.micrometer.core.instrument.Timer foldDelay;
  private final Map<RecordKind, Map<Object, long[]>> outboxes = new EnumMap<>(RecordKind.class);

  public PipelineMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.mirror = new MirrorMetrics(registry);
    changed = folded("changed");
    unchanged = folded("unchanged");
    for (Reason r : Reason.values()) {
      dlq.put(
          r,
          Counter.builder("demandfold.dlq")
              .description("events sent to the dead-letter topic, by reason")
              .tag("reason", r.code())
              .register(registry));
    }
    dlqTruncated =
        Counter.builder("demandfold.dlq.truncated")
            .description("dead-letter records whose key or value was cut to fit the DLQ topic")
            .register(registry);
    dlqDropped =
        Counter.builder("demandfold.dlq.dropped")
            .description(
                "dead-letter records the producer or the broker refused, dropped instead of"
                    + " failing the stream")
            .register(registry);
    threadsReplaced =
        Counter.builder("demandfold.stream.threads.replaced")
            .description(
                "stream threads replaced after a transient failure (the instance went on with a"
                    + " new thread)")
            .register(registry);
    tableCacheEvictions =
        Counter.builder("demandfold.table.cache.evictions")
            .description(
                "targets the table stage dropped from its cache of table entries to stay within"
                    + " table.cache.shards (read from the store again when touched)")
            .register(registry);
    foldDelay =
        LatencyTimers.register(
            registry,
            "demandfold.fold.delay",
            "how old an event was when it was folded (the wall clock less its Kafka timestamp),"
                + " one event in 8");
    misrouted =
        Counter.builder("demandfold.events.misrouted")
            .description(
                "events that arrived on a partition their key does not hash to, sent on to the"
                    + " task that owns their shard")
            .register(registry);
    for (RecordKind k : RecordKind.values()) {
      Map<Object, long[]> byTask = new ConcurrentHashMap<>();
      outboxes.put(k, byTask);
      Gauge.builder("demandfold.mirror.dirty.keys", byTask, PipelineMetrics::dirtyKeys)
          .description("keys whose latest change etcd has not acknowledged yet")
          .tag("kind", k.label())
          .register(registry);
      Gauge.builder("demandfold.mirror.lag", byTask, PipelineMetrics::lagSeconds)
          .description("age of the oldest change etcd has not acknowledged yet")
          .baseUnit("seconds")
          .tag("kind", k.label())
          .register(registry);
    }
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Registers {@code demandfold_emit_interval_seconds}, the emit interval the pacing sets now. */
  void bind(Pacing pacing) {
    Gauge.builder("demandfold.emit.interval", pacing, p -> p.emitIntervalMs() / 1000.0)
        .description(
            "how long a changed record waits before it is emitted downstream now: emit.interval.ms"
                + " while the fold keeps up, up to catchup.interval.ms while it lags")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  /**
   * Registers the live mirror's gauges: {@code demandfold_mirror_limit}, the etcd calls in flight
   * its adaptive limit allows now, and {@code demandfold_mirror_buffer_bytes}, the bytes of records
   * it holds for writing.
   */
  public void bind(LiveMirror live) {
    Gauge.builder("demandfold.mirror.limit", live, LiveMirror::limit)
        .description("etcd calls in flight the live mirror's adaptive limit allows now")
        .register(registry);
    Gauge.builder("demandfold.mirror.buffer", live, LiveMirror::heldBytes)
        .description("bytes of records the live mirror holds for writing into etcd")
        .baseUnit("bytes")
        .register(registry);
  }

  public MirrorMetrics mirror() {
    return mirror;
  }

  /** Counts events folded: {@code changedRecords} changed a folded record, the rest did not. */
  void folded(long changedRecords, long unchangedRecords) {
    if (changedRecords > 0) {
      changed.increment(changedRecords);
    }
    if (unchangedRecords > 0) {
      unchanged.increment(unchangedRecords);
    }
  }

  /** The table stage dropped a target from its cache ({@link TargetCache}). */
  void tableCacheEvicted() {
    tableCacheEvictions.increment();
  }

  /** Targets the table stage dropped from its cache so far. */
  public long tableCacheEvictions() {
    return (long) tableCacheEvictions.count();
  }

  void misrouted() {
    misrouted.increment();
  }

  /** An event was folded {@code ms} after its Kafka timestamp. */
  void foldDelay(long ms) {
    foldDelay.record(Math.max(0, ms), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** The timer of how old events were when folded ({@link #foldDelay}). */
  public io.micrometer.core.instrument.Timer foldDelay() {
    return foldDelay;
  }

  /** Events that arrived on a partition their key does not hash to. */
  public long misroutedCount() {
    return (long) misrouted.count();
  }

  void deadLettered(Reason reason) {
    dlq.get(reason).increment();
  }

  /** Events folded so far: those that changed their shard's record and those that did not. */
  public record FoldedCounts(long changed, long unchanged) {
    /** Every event folded. */
    public long total() {
      return changed + unchanged;
    }
  }

  /** Counts of events folded, changed and unchanged. */
  public FoldedCounts foldedCounts() {
    return new FoldedCounts((long) changed.count(), (long) unchanged.count());
  }

  /** Events sent to the DLQ for {@code reason}. */
  public long dlqCount(Reason reason) {
    return (long) dlq.get(reason).count();
  }

  void deadLetterTruncated() {
    dlqTruncated.increment();
  }

  /** Dead-letter records whose key or value was cut to fit the dead-letter topic. */
  public long dlqTruncated() {
    return (long) dlqTruncated.count();
  }

  void deadLetterDropped() {
    dlqDropped.increment();
  }

  /** Dead-letter records the producer or the broker refused and that were dropped. */
  public long dlqDropped() {
    return (long) dlqDropped.count();
  }

  /** Counts a stream thread replaced after a transient failure. */
  public void threadReplaced() {
    threadsReplaced.increment();
  }

  /** Stream threads replaced after a transient failure. */
  public long threadsReplaced() {
    return (long) threadsReplaced.count();
  }

  /**
   * Publishes what of one task's outbox waits for etcd: {@code waiting[0]} keys whose latest change
   * etcd has not acknowledged, the oldest of those changes made at {@code waiting[1]} (wall clock).
   */
  void outbox(RecordKind kind, Object task, long[] waiting) {
    outboxes.get(kind).put(task, waiting);
  }

  void outboxClosed(RecordKind kind, Object task) {
    outboxes.get(kind).remove(task);
  }

  /** Keys of {@code kind} waiting for etcd over all tasks of this instance. */
  public long dirtyKeys(RecordKind kind) {
    return (long) dirtyKeys(outboxes.get(kind));
  }

  /**
   * Age in seconds of the oldest change of {@code kind} etcd has not acknowledged, over all tasks;
   * 0 when none.
   */
  public double lagSeconds(RecordKind kind) {
    return lagSeconds(outboxes.get(kind));
  }

  /** Events sent to the DLQ for any reason. */
  public long dlqTotal() {
    long n = 0;
    for (Counter c : dlq.values()) {
      n += (long) c.count();
    }
    return n;
  }

  private static double dirtyKeys(Map<Object, long[]> byTask) {
    long n = 0;
    for (long[] v : byTask.values()) {
      n += v[0];
    }
    return n;
  }

  private static double lagSeconds(Map<Object, long[]> byTask) {
    long oldest = Long.MAX_VALUE;
    for (long[] v : byTask.values()) {
      if (v[0] > 0) {
        oldest = Math.min(oldest, v[1]);
      }
    }
    return oldest == Long.MAX_VALUE ? 0 : Math.max(0, System.currentTimeMillis() - oldest) / 1000.0;
  }

  private Counter folded(String result) {
    return Counter.builder("demandfold.events.folded")
        .description("valid events joined into the per-shard records, by whether they changed one")
        .tag("result", result)
        .register(registry);
  }
}
