package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.ops.LogReplay;
import io.demandfold.ops.Progress;
import io.demandfold.ops.Spill;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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
    Reading reading = Reading.start(config, until, what, err);
    LogReplay.Result r =
        reading.replay().replay(reading.end(), keyPrefix, reading.progress()::update);
    reading.finish(r.events(), r.fold().shardCount(), r.fold().targets().size(), r.rejected(), "");
    return r;
  }

  /**
   * Spills the valid records up to {@code until} into {@code spill} ({@link Spill}); the summary
   * line, with the shards and targets, is printed by {@code finish} once the buckets are folded.
   */
  static Spilled spill(
      DemandfoldConfig config, LogEnd until, String what, PrintWriter err, Spill spill)
      throws IOException {
    Reading reading = Reading.start(config, until, what, err);
    LogReplay.Counts counts =
        reading
            .replay()
            .replay(
                reading.end(),
                null,
                reading.progress()::update,
                (key, value, event) -> spill.add(key, value));
    return new Spilled(reading, counts, spill);
  }

  /**
   * A replay of the events topic up to the offsets {@code until} resolved to, with its progress.
   */
  record Reading(LogReplay replay, Map<TopicPartition, Long> end, LogEnd until, Progress progress) {
    static Reading start(DemandfoldConfig config, LogEnd until, String what, PrintWriter err)
        throws IOException {
      String topic = config.getString(DemandfoldConfig.TOPICS_EVENTS);
      LogReplay replay = new LogReplay(config.kafkaClientSettings(), topic);
      Map<TopicPartition, Long> end = until.resolve(replay, topic);
      return new Reading(replay, end, until, new Progress(err, Progress.isTerminal(), what));
    }

    /** Prints the summary line: what was read and folded, up to where, and what was rejected. */
    void finish(long events, long shards, long targets, Map<Reason, Long> rejected, String more) {
      Map<Integer, Long> offsets = new TreeMap<>();
      end.forEach((tp, o) -> offsets.put(tp.partition(), o));
      progress.finish(
          events,
          shards
              + " shards of "
              + targets
              + " targets; read up to offsets "
              + offsets
              + (until.asOfMs() == null ? "" : " (" + until.describe() + ")")
              + (rejected.isEmpty() ? "" : "; rejected (in the DLQ) " + rejected)
              + more);
    }
  }

  /** A replay spilled to disk, its summary line still to print. */
  record Spilled(Reading reading, LogReplay.Counts counts, Spill spill) {
    /** Prints the summary line, as {@link #run} does, once every bucket is folded. */
    void finish() {
      reading.finish(
          counts.events(),
          spill.shards(),
          spill.targets(),
          counts.rejected(),
          String.format(Locale.ROOT, "; spilled %,d bytes to disk", spill.bytes()));
    }
  }
}
