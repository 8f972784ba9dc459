package io.demandfold.stream;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics.Kind;
import java.time.Duration;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Joins each event into its shard's folded record (store {@code shard-records}); a change marks the
 * key in the outbox (store {@code shard-outbox}) in the same transaction. Wall-clock punctuators
 * emit the changed records downstream every {@code emit.interval.ms}, coalesced, and drain the
 * outbox into etcd every {@code outbox.interval.ms}.
 *
 * <p>Keys must be {@code <hex(target)>/<shard>} of the value ({@link Keys#requireMatch}); anything
 * else is rejected, and the processing exception handler sends it to the DLQ.
 */
final class ShardJoinProcessor implements Processor<String, DemandEvent, String, ShardRecord> {
  private final StreamSettings settings;
  private final EtcdMirror mirror;
  private final PipelineMetrics metrics;
  private ProcessorContext<String, ShardRecord> context;
  private KeyValueStore<String, ShardRecord> records;
  private Outbox outbox;
  private MirrorDrain drain;
  private long lastGaugeMs;

  ShardJoinProcessor(StreamSettings settings, EtcdMirror mirror, PipelineMetrics metrics) {
    this.settings = settings;
    this.mirror = mirror;
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, ShardRecord> context) {
    this.context = context;
    this.records = context.getStateStore(Names.SHARD_RECORDS);
    this.outbox = new Outbox(context.getStateStore(Names.SHARD_OUTBOX), mirror != null);
    if (mirror != null) {
      drain =
          new MirrorDrain(
              "shard records of task " + context.taskId(),
              outbox,
              settings.mirrorConcurrency(),
              settings.mirrorBatchKeys(),
              keys -> mirror.mirrorShards(keys, keys.stream().map(records::get).toList()));
    }
    context.schedule(
        Duration.ofMillis(settings.emitIntervalMs()), PunctuationType.WALL_CLOCK_TIME, this::emit);
    context.schedule(
        Duration.ofMillis(settings.outboxIntervalMs()),
        PunctuationType.WALL_CLOCK_TIME,
        this::drain);
  }

  @Override
  public void process(Record<String, DemandEvent> record) {
    String key = record.key();
    DemandEvent event = record.value();
    Keys.requireMatch(key, event);
    ShardRecord stored = records.get(key);
    ShardRecord joined = Join.join(stored, event.record());
    if (joined == stored) {
      metrics.folded(false);
      return;
    }
    records.put(key, joined);
    outbox.mark(key, context.currentSystemTimeMs());
    metrics.folded(true);
  }

  /** Emits the records changed since the last emit downstream, one per key. */
  private void emit(long timestamp) {
    outbox.emit(key -> context.forward(new Record<>(key, records.get(key), timestamp)));
  }

  /** Drains dirty keys into etcd and publishes the outbox gauges. */
  private void drain(long timestamp) {
    if (drain != null) {
      drain.tick(timestamp);
    }
    if (timestamp - lastGaugeMs >= 1000 || outbox.size() == 0) {
      metrics.outbox(Kind.SHARD, context.taskId(), outbox.size(), outbox.oldestSinceMs());
      lastGaugeMs = timestamp;
    }
  }

  @Override
  public void close() {
    if (drain != null) {
      drain.close();
    }
    if (context != null) {
      metrics.outboxClosed(Kind.SHARD, context.taskId());
    }
  }
}
