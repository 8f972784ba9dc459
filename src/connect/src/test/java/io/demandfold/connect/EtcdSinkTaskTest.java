package io.demandfold.connect;

import static io.demandfold.connect.SinkRecordDecoderTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Bad records, without etcd (the endpoint answers nothing: a batch of only bad records makes no
 * etcd call): with Connect's errant record reporter, without one under {@code
 * errors.tolerance=all}, and without one otherwise.
 */
class EtcdSinkTaskTest {
  private final EtcdSinkTask task = new EtcdSinkTask();
  private final RecordedMetrics metrics = new RecordedMetrics();

  /** What Connect's reporter was handed: the record and the error it reports with it. */
  private record Report(SinkRecord record, Throwable error) {}

  private final List<Report> reported = new ArrayList<>();

  private final ErrantRecordReporter reporter =
      (record, error) -> {
        reported.add(new Report(record, error));
        return CompletableFuture.completedFuture(null);
      };

  private void start(ErrantRecordReporter r, String tolerance) {
    Map<String, String> props = EtcdSinkConfigTest.minimal();
    props.put("etcd.endpoints", "http://127.0.0.1:9");
    if (tolerance != null) {
      props.put("errors.tolerance", tolerance);
    }
    task.initialize(new Context(r, metrics));
    task.start(props);
  }

  @AfterEach
  void stop() {
    task.stop();
  }

  /** An undecodable value at offset 3 and a record without a key at offset 4, both of t-0. */
  private static List<SinkRecord> bad() {
    byte[] garbage = "garbage".getBytes(StandardCharsets.UTF_8);
    return List.of(
        record("6f/s1".getBytes(StandardCharsets.UTF_8), garbage, 3),
        record(null, "{}".getBytes(StandardCharsets.UTF_8), 4));
  }

  @Test
  void shouldReportEachBadRecordOnceToConnectsReporterWithItsReason() {
    start(reporter, "all");
    task.put(bad());
    task.put(bad().subList(1, 2)); // a later batch: reported again, it is another delivery
    assertThat(reported).map(r -> r.record().kafkaOffset()).containsExactly(3L, 4L, 4L);
    assertThat(reported.get(0).error())
        .isInstanceOf(DataException.class)
        .hasMessageStartingWith("undecodable: not a shard line");
    assertThat(reported.get(1).error())
        .isInstanceOf(DataException.class)
        .hasMessageStartingWith("null_key: record has no key");
    assertThat(metrics.value("bad-records-total")).isEqualTo(3);
  }

  @Test
  void shouldSkipAndCountBadRecordsWithoutAReporterWhenToleranceIsAll() {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    Logger taskLog = (Logger) LoggerFactory.getLogger(EtcdSinkTask.class);
    log.setContext(taskLog.getLoggerContext());
    log.start();
    taskLog.addAppender(log);
    try {
      start(null, "all");
      task.put(bad()); // returns: the records are skipped, the batch is done
    } finally {
      taskLog.detachAppender(log);
    }
    assertThat(metrics.value("bad-records-total")).isEqualTo(2);
    assertThat(log.list)
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .extracting(ILoggingEvent::getFormattedMessage)
        .satisfiesExactly(
            m -> assertThat(m).startsWith("skipping record t-0 at offset 3: undecodable: "),
            m -> assertThat(m).startsWith("skipping record t-0 at offset 4: null_key: "));
  }

  @Test
  void shouldStopOnABadRecordWithoutAReporterUnlessToleranceIsAll() {
    task.initialize(new Context(null, metrics));
    task.start(EtcdSinkConfigTest.minimal());
    assertThatThrownBy(() -> task.put(bad()))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("cannot mirror record t-0@3: undecodable")
        .hasMessageContaining("errors.tolerance=all");
    assertThat(metrics.value("bad-records-total")).isEqualTo(1);
  }

  @Test
  void shouldNotStartWithAnInvalidSetting() {
    task.initialize(new Context(null, metrics));
    assertThatThrownBy(
            () -> task.start(EtcdSinkConfigTest.with("demandfold.input", "table-demand")))
        .hasMessageContaining("demandfold.input");
  }

  /** The parts of a sink task context the task uses. */
  static final class Context implements SinkTaskContext {
    private final ErrantRecordReporter reporter;
    private final PluginMetrics metrics;

    Context(ErrantRecordReporter reporter, PluginMetrics metrics) {
      this.reporter = reporter;
      this.metrics = metrics;
    }

    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {}

    @Override
    public void offset(TopicPartition tp, long offset) {}

    @Override
    public void timeout(long timeoutMs) {}

    @Override
    public Set<TopicPartition> assignment() {
      return Set.of();
    }

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}

    @Override
    public ErrantRecordReporter errantRecordReporter() {
      return reporter;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return metrics;
    }
  }

  /** Plugin metrics that keep what the task registers, to read its counters. */
  static final class RecordedMetrics implements PluginMetrics {
    private final Map<MetricName, MetricValueProvider<?>> metrics = new HashMap<>();

    /** The value of the gauge {@code name} with {@code tags} given as name, value pairs. */
    long value(String name, String... tags) {
      LinkedHashMap<String, String> t = new LinkedHashMap<>();
      for (int i = 0; i + 1 < tags.length; i += 2) {
        t.put(tags[i], tags[i + 1]);
      }
      MetricValueProvider<?> p = metrics.get(metricName(name, "", t));
      assertThat(p).as("metric %s", name).isInstanceOf(Gauge.class);
      return ((Number) ((Gauge<?>) p).value(new MetricConfig(), 0)).longValue();
    }

    @Override
    public MetricName metricName(
        String name, String description, LinkedHashMap<String, String> tags) {
      return new MetricName(name, "plugins", description, tags);
    }

    @Override
    public void addMetric(MetricName name, MetricValueProvider<?> provider) {
      metrics.put(name, provider);
    }

    @Override
    public void removeMetric(MetricName name) {
      metrics.remove(name);
    }

    @Override
    public Sensor addSensor(String name) {
      throw new UnsupportedOperationException("the task counts with gauges");
    }

    @Override
    public void removeSensor(String name) {}
  }
}
