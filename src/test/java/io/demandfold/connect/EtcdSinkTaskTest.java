package io.demandfold.connect;

import static io.demandfold.connect.SinkRecordDecoderTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bad records, without etcd: a batch of only bad records makes no etcd call. */
class EtcdSinkTaskTest {
  private final EtcdSinkTask task = new EtcdSinkTask();
  private final List<Object[]> reported = new ArrayList<>();

  private final ErrantRecordReporter reporter =
      (record, error) -> {
        reported.add(new Object[] {record, error});
        return CompletableFuture.completedFuture(null);
      };

  private void start(ErrantRecordReporter r, String tolerance) {
    Map<String, String> props = EtcdSinkConfigTest.minimal();
    props.put("etcd.endpoints", "http://127.0.0.1:9");
    if (tolerance != null) {
      props.put("errors.tolerance", tolerance);
    }
    task.initialize(new Context(r));
    task.start(props);
  }

  @AfterEach
  void stop() {
    task.stop();
  }

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
    assertThat(reported).hasSize(3);
    assertThat(reported.get(0)[1])
        .isInstanceOf(DataException.class)
        .asString()
        .contains("undecodable: not a shard line");
    assertThat(reported.get(1)[1]).asString().contains("null_key: record has no key");
  }

  @Test
  void shouldSkipBadRecordsWithoutAReporterOnlyWhenToleranceIsAll() {
    start(null, "all");
    task.put(bad());
    assertThat(reported).isEmpty();
    task.stop();

    EtcdSinkTask strict = new EtcdSinkTask();
    strict.initialize(new Context(null));
    Map<String, String> props = EtcdSinkConfigTest.minimal();
    strict.start(props);
    try {
      assertThatThrownBy(() -> strict.put(bad()))
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("cannot mirror record t-0@3: undecodable")
          .hasMessageContaining("errors.tolerance=all");
    } finally {
      strict.stop();
    }
  }

  @Test
  void shouldNotStartWithAnInvalidSetting() {
    task.initialize(new Context(null));
    assertThatThrownBy(
            () -> task.start(EtcdSinkConfigTest.with("demandfold.input", "table-demand")))
        .hasMessageContaining("demandfold.input");
  }

  /** The parts of a sink task context the task uses. */
  private static final class Context implements SinkTaskContext {
    private final ErrantRecordReporter reporter;

    Context(ErrantRecordReporter reporter) {
      this.reporter = reporter;
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
      return null;
    }
  }
}
