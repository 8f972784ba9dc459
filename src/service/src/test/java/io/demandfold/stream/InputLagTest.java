package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

/**
 * The input lags an instance reads from its Kafka Streams client's metrics: the main consumer's
 * {@code records-lag} per partition, not the restore consumer's, nor other metrics.
 */
class InputLagTest {
  /** A metric of the consumer's fetch manager with {@code value}. */
  static Map.Entry<MetricName, Metric> lag(
      String client, String name, String topic, int partition, Object value) {
    MetricName n =
        new MetricName(
            name,
            "consumer-fetch-manager-metrics",
            "",
            Map.of("client-id", client, "topic", topic, "partition", Integer.toString(partition)));
    Metric m =
        new Metric() {
          @Override
          public MetricName metricName() {
            return n;
          }

          @Override
          public Object metricValue() {
            return value;
          }
        };
    return Map.entry(n, m);
  }

  /** Metrics of these entries. */
  @SafeVarargs
  static Map<MetricName, Metric> metrics(Map.Entry<MetricName, Metric>... entries) {
    Map<MetricName, Metric> out = new HashMap<>();
    for (Map.Entry<MetricName, Metric> e : entries) {
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  @Test
  void shouldTellAPartitionBehindByItsMainConsumersRecordsLag() {
    InputLag lag = new InputLag();
    assertThat(lag.behind(List.of("events", "misrouted"), 0)).as("nothing known").isFalse();
    lag.read(
        metrics(
            lag("app-StreamThread-1-consumer", "records-lag", "events", 0, 0.0),
            lag("app-StreamThread-1-consumer", "records-lag", "misrouted", 0, 12.0),
            lag("app-StreamThread-1-consumer", "records-lag", "events", 1, 0.0),
            lag("app-StreamThread-1-consumer", "records-lag-max", "events", 1, 99.0),
            lag("app-StreamThread-1-restore-consumer", "records-lag", "events", 2, 50.0),
            lag("app-StreamThread-1-consumer", "records-lag", "events", 3, Double.NaN)));
    assertThat(lag.behind(List.of("events", "misrouted"), 0)).as("misrouted-0 behind").isTrue();
    assertThat(lag.behind(List.of("events"), 0)).isFalse();
    assertThat(lag.behind(List.of("events", "misrouted"), 1)).as("records-lag-max").isFalse();
    assertThat(lag.behind(List.of("events"), 2)).as("the restore consumer").isFalse();
    assertThat(lag.behind(List.of("events"), 3)).as("not measured yet").isFalse();

    lag.read(metrics());
    assertThat(lag.behind(List.of("events", "misrouted"), 0)).as("read anew").isFalse();
  }
}
