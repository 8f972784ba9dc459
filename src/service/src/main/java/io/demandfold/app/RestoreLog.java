package io.demandfold.app;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Logs every restore of an active task's store from its changelog: one line when it starts (how
 * many records) and one when it ends (how many, in how long); a restore with nothing to read (every
 * store partition on a first start) at DEBUG only. Kafka Streams' own lines of it are below the
 * WARN level its classes log at. A restore follows a task moving to an instance without its state
 * (a failed instance with {@code num.standby.replicas=0}, a lost state directory); with a standby
 * replica the promoted one restores only what it had not yet read. The bench reads the end lines
 * ({@code restored STORE partition P: N records in T ms}); keep their form.
 */
final class RestoreLog implements StateRestoreListener {
  private static final Logger log = LoggerFactory.getLogger(RestoreLog.class);

  private final Map<TopicPartition, Long> started = new ConcurrentHashMap<>();

  @Override
  public void onRestoreStart(TopicPartition tp, String store, long startOffset, long endOffset) {
    started.put(tp, System.nanoTime());
    // a first start restores every store partition from an empty changelog: not worth a line each
    log.atLevel(endOffset > startOffset ? Level.INFO : Level.DEBUG)
        .log(
            "restoring {} partition {} from changelog {}: offsets {} to {}",
            store,
            tp.partition(),
            tp.topic(),
            startOffset,
            endOffset);
  }

  @Override
  public void onBatchRestored(TopicPartition tp, String store, long batchEndOffset, long records) {
    // the start and end lines suffice; a batch is a poll's worth
  }

  @Override
  public void onRestoreEnd(TopicPartition tp, String store, long totalRestored) {
    Long t0 = started.remove(tp);
    long ms = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
    Level level = totalRestored > 0 ? Level.INFO : Level.DEBUG;
    if (log.isEnabledForLevel(level)) {
      log.atLevel(level).log(finished(store, tp.partition(), totalRestored, ms));
    }
  }

  @Override
  public void onRestoreSuspended(TopicPartition tp, String store, long totalRestored) {
    started.remove(tp);
    log.info(
        "restore of {} partition {} suspended after {} records (the task moved away)",
        store,
        tp.partition(),
        totalRestored);
  }

  /** The end line. */
  static String finished(String store, int partition, long records, long ms) {
    return "restored "
        + store
        + " partition "
        + partition
        + ": "
        + records
        + " records in "
        + ms
        + " ms";
  }
}
