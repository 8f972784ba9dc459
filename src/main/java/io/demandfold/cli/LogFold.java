package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.ops.LogFolder;
import io.demandfold.ops.Progress;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads and folds the events log for {@code audit}, {@code rebuild}, {@code inspect --as-of} and
 * {@code fold --from-topic}, showing progress.
 */
final class LogFold {
  private LogFold() {}

  static LogFolder.Result run(DemandfoldConfig config, LogEnd until, String what, PrintWriter err)
      throws IOException {
    return run(config, until, null, what, err);
  }

  /**
   * Folds the records up to {@code until} whose key starts with {@code keyPrefix} (all when null).
   */
  static LogFolder.Result run(
      DemandfoldConfig config, LogEnd until, String keyPrefix, String what, PrintWriter err)
      throws IOException {
    Map<String, Object> consumer = new HashMap<>(config.kafkaSettings());
    consumer.put(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS));
    String topic = config.getString(DemandfoldConfig.TOPICS_EVENTS);
    LogFolder folder = new LogFolder(consumer, topic);
    Map<TopicPartition, Long> end = until.resolve(folder, topic);
    Progress progress = new Progress(err, Progress.isTerminal(), what);
    LogFolder.Result r = folder.fold(end, keyPrefix, progress::update);
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
}
