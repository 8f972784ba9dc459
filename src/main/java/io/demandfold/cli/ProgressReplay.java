package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.ops.LogReplay;
import io.demandfold.ops.Progress;
import io.demandfold.ops.Spill;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * Replays the events log ({@link LogReplay}) for {@code audit}, {@code rebuild}, {@code inspect
 * --as-of} and {@code fold --from-topic}, showing progress on the terminal.
 */
final class ProgressReplay {
  private ProgressReplay() {}

  static LogReplay.Result run(DemandfoldConfig config, LogEnd until, String what, PrintWriter err)
      throws IOException {
    return run(config, until, null, what, err);
  }

  /**
   * Folds the records up to {@code until} whose key starts with {@code keyPrefix} (all when null).
   */
  static LogReplay.Result run(
      DemandfoldConfig config, LogEnd until, String keyPrefix, String what, PrintWriter err)
      throws IOException {
    Map<String, Object> consumer = new HashMap<>(config.kafkaSettings());
    consumer.put(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS));
    String topic = config.getString(DemandfoldConfig.TOPICS_EVENTS);
    LogReplay replay = new LogReplay(consumer, topic);
    Map<TopicPartition, Long> end = until.resolve(replay, topic);
    Progress progress = new Progress(err, Progress.isTerminal(), what);
    LogReplay.Result r = replay.replay(end, keyPrefix, progress::update);
    Map<Integer, Long> offsets = new java.util.TreeMap<>();
    end.forEach((tp, o) -> offsets.put(tp.partition(), o));
    progress.finish(
        r.events(),
        r.fold().shardCount()
            + " shards of "
            + r.fold().targets().size()
            + " targets; read up to offsets "
            + offsets
            + (until.asOfMs() == null ? "" : " (" + until.describe() + ")")
            + (r.rejected().isEmpty() ? "" : "; rejected (in the DLQ) " + r.rejected()));
    return r;
  }

  /**
   * Spills the valid records up to {@code until} into {@code spill} ({@link Spill}); the summary
   * line, with the shards and targets, is printed by {@code finish} once the buckets are folded.
   */
  static Spilled spill(
      DemandfoldConfig config, LogEnd until, String what, PrintWriter err, Spill spill)
      throws IOException {
    Map<String, Object> consumer = new HashMap<>(config.kafkaSettings());
    consumer.put(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS));
    String topic = config.getString(DemandfoldConfig.TOPICS_EVENTS);
    LogReplay replay = new LogReplay(consumer, topic);
    Map<TopicPartition, Long> end = until.resolve(replay, topic);
    Progress progress = new Progress(err, Progress.isTerminal(), what);
    LogReplay.Counts counts =
        replay.replay(end, null, progress::update, (key, value, event) -> spill.add(key, value));
    return new Spilled(progress, counts, end, until, spill);
  }

  /** A replay spilled to disk, its summary line still to print. */
  record Spilled(
      Progress progress,
      LogReplay.Counts counts,
      Map<TopicPartition, Long> end,
      LogEnd until,
      Spill spill) {
    /** Prints the summary line, as {@link #run} does, once every bucket is folded. */
    void finish() {
      Map<Integer, Long> offsets = new java.util.TreeMap<>();
      end.forEach((tp, o) -> offsets.put(tp.partition(), o));
      progress.finish(
          counts.events(),
          spill.shards()
              + " shards of "
              + spill.targets()
              + " targets; read up to offsets "
              + offsets
              + (until.asOfMs() == null ? "" : " (" + until.describe() + ")")
              + (counts.rejected().isEmpty() ? "" : "; rejected (in the DLQ) " + counts.rejected())
              + String.format(java.util.Locale.ROOT, "; spilled %,d bytes to disk", spill.bytes()));
    }
  }
}
