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

/** Reads and folds the events log for {@code audit} and {@code rebuild}, showing progress. */
final class LogFold {
  private LogFold() {}

  static LogFolder.Result run(DemandfoldConfig config, String until, String what, PrintWriter err)
      throws IOException {
    Map<String, Object> consumer = new HashMap<>(config.kafkaSettings());
    consumer.put(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS));
    String topic = config.getString(DemandfoldConfig.TOPICS_EVENTS);
    LogFolder folder = new LogFolder(consumer, topic);
    Map<TopicPartition, Long> end = OpsOptions.untilOffsets(until, topic);
    if (end == null) {
      end = folder.endOffsets();
    }
    Progress progress = new Progress(err, Progress.isTerminal(), what);
    LogFolder.Result r = folder.fold(end, progress::update);
    Map<Integer, Long> offsets = new java.util.TreeMap<>();
    end.forEach((tp, o) -> offsets.put(tp.partition(), o));
    progress.finish(
        r.events(),
        r.fold().shardCount()
            + " shards of "
            + r.fold().targets().size()
            + " targets; read up to offsets "
            + offsets
            + (r.rejected().isEmpty() ? "" : "; rejected (in the DLQ) " + r.rejected()));
    return r;
  }
}
