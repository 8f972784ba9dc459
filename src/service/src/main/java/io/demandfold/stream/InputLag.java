package io.demandfold.stream;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;

/**
 * Which input partitions of an instance hold records its consumer has not fetched yet: the main
 * consumer's {@code records-lag} per partition (the high watermark less the fetch position, as of
 * its last fetch of the partition), read from the Kafka Streams client's metrics every {@link
 * #PERIOD_MS}.
 *
 * <p>A task that gets no event for a few ticks while it catches up may simply not have been handed
 * any: a poll returns up to {@code max.poll.records} records of a few partitions, and a stream
 * thread whose commits take seconds (a catch-up's changelogs, a busy broker) polls once per commit,
 * so a partition can wait several polls for its turn. Such a task must not take itself for idle and
 * let go of what it holds; one whose partition is fetched to its end may. Without metrics (a test
 * driver) nothing is known to be behind. Thread-safe.
 */
public final class InputLag implements AutoCloseable {
  /** How often the lags are read from the metrics. */
  static final long PERIOD_MS = 250;

  private volatile Map<TopicPartition, Long> lags = Map.of();
  private ScheduledExecutorService reader;

  /**
   * Reads the lags from {@code metrics} (the Kafka Streams client's) every {@link #PERIOD_MS}, on a
   * daemon thread, until {@link #close}.
   */
  public synchronized void watch(Supplier<Map<MetricName, ? extends Metric>> metrics) {
    if (reader != null) {
      throw new IllegalStateException("already watching");
    }
    reader =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "demandfold-input-lag");
              t.setDaemon(true);
              return t;
            });
    reader.scheduleWithFixedDelay(
        () -> {
          try {
            read(metrics.get());
          } catch (RuntimeException e) {
            lags = Map.of(); // metrics of a closing client: nothing known
          }
        },
        0,
        PERIOD_MS,
        TimeUnit.MILLISECONDS);
  }

  /** Takes the main consumers' {@code records-lag} per partition from {@code metrics}. */
  void read(Map<MetricName, ? extends Metric> metrics) {
    Map<TopicPartition, Long> out = new HashMap<>();
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (!n.name().equals("records-lag")
          || !n.group().equals("consumer-fetch-manager-metrics")
          || String.valueOf(n.tags().get("client-id")).endsWith("-restore-consumer")) {
        continue;
      }
      String topic = n.tags().get("topic");
      String partition = n.tags().get("partition");
      if (topic == null || partition == null || !(e.getValue().metricValue() instanceof Number v)) {
        continue;
      }
      double lag = v.doubleValue();
      if (!Double.isNaN(lag)) {
        out.merge(new TopicPartition(topic, Integer.parseInt(partition)), (long) lag, Math::max);
      }
    }
    lags = out;
  }

  /** Whether partition {@code partition} of one of {@code topics} has records not yet fetched. */
  boolean behind(Iterable<String> topics, int partition) {
    Map<TopicPartition, Long> now = lags;
    for (String topic : topics) {
      Long lag = now.get(new TopicPartition(topic, partition));
      if (lag != null && lag > 0) {
        return true;
      }
    }
    return false;
  }

  @Override
  public synchronized void close() {
    if (reader != null) {
      reader.shutdownNow();
      reader = null;
    }
  }
}
