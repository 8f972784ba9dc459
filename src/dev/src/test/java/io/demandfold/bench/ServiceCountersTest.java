package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.stream.PipelineMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The counters (g) and (h) read from a service child's {@code /metrics}: read here from the
 * exposition of the service's own meters, so that a renamed meter or label fails this test, not a
 * bench run.
 */
class ServiceCountersTest {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final PipelineMetrics metrics = new PipelineMetrics(registry);

  private void count(String name, double n, String... tags) {
    registry.find(name).tags(tags).counter().increment(n);
  }

  @Test
  void shouldReadTheMirrorsCountersByKindAndTheFoldDelayFromTheServicesExposition() {
    count("demandfold.mirror", 90, "kind", "shard", "result", "written");
    count("demandfold.mirror", 7, "kind", "shard", "result", "unchanged");
    count("demandfold.mirror", 8, "kind", "table", "result", "written");
    count("demandfold.mirror", 2, "kind", "table", "result", "too_large");
    count("demandfold.etcd.requests", 3, "op", "txn", "kind", "shard");
    count("demandfold.etcd.requests", 4, "op", "get", "kind", "shard");
    count("demandfold.etcd.requests", 2, "op", "txn", "kind", "table");
    count("demandfold.etcd.requests", 1, "op", "get", "kind", "probe");
    count("demandfold.etcd.request.bytes", 30_000, "kind", "shard");
    count("demandfold.etcd.request.bytes", 200_000, "kind", "table");
    count("demandfold.etcd.request.bytes", 40, "kind", "probe");
    metrics.foldDelay().record(100, TimeUnit.MILLISECONDS);
    metrics.foldDelay().record(300, TimeUnit.MILLISECONDS);

    ServiceCounters c = ServiceCounters.parse(registry.scrape(), 7);

    assertThat(c.nanos()).isEqualTo(7);
    assertThat(c.shardKeys()).as("written").isEqualTo(90);
    assertThat(c.tableKeys()).as("written and too_large (derived fields only)").isEqualTo(10);
    assertThat(c.shardTxns()).isEqualTo(3);
    assertThat(c.tableTxns()).isEqualTo(2);
    assertThat(c.shardRequests()).isEqualTo(7);
    assertThat(c.tableRequests()).isEqualTo(2);
    assertThat(c.requests()).as("the probe's too").isEqualTo(10);
    assertThat(c.shardBytes()).isEqualTo(30_000);
    assertThat(c.tableBytes()).isEqualTo(200_000);
    assertThat(c.bytes()).isEqualTo(230_040);
    assertThat(c.foldDelays()).isEqualTo(2);
    assertThat(c.foldDelaySeconds()).isEqualTo(0.4);
    assertThat(c.foldDelayMaxMs()).isEqualTo(300);
    assertThat(c.foldDelayP99Ms()).isBetween(290.0, 310.0);
  }

  @Test
  void shouldTakeWindowFiguresAsDifferencesOfTwoReadings() {
    ServiceCounters a =
        new ServiceCounters(0, 100, 10, 5, 5, 12, 6, 20, 1e6, 2e6, 3e6, 8, 0.8, 50, 90);
    ServiceCounters b =
        new ServiceCounters(
            2_000_000_000L, 400, 30, 10, 5, 20, 7, 30, 2e6, 3e6, 5e6, 18, 3.8, 60, 99);

    assertThat(b.secondsSince(a)).isEqualTo(2.0);
    assertThat(b.keysSince(a)).isEqualTo(320);
    assertThat(b.keysPerTxnSince(a)).isEqualTo(64);
    assertThat(b.foldDelayMeanMsSince(a)).as("3 s over 10 events").isEqualTo(300);
    assertThat(a.foldDelayMeanMsSince(a)).as("no event recorded").isNaN();
    assertThat(a.keysPerTxnSince(a)).as("no transaction").isNaN();
  }

  @Test
  void shouldRefuseAServiceWhoseRequestsCarryNoKind() {
    String old =
        "demandfold_mirror_total{kind=\"shard\",result=\"written\"} 5.0\n"
            + "demandfold_mirror_total{kind=\"table\",result=\"written\"} 1.0\n"
            + "demandfold_etcd_requests_total{op=\"txn\"} 2.0\n"
            + "demandfold_etcd_request_bytes_total 900.0\n";

    assertThatThrownBy(() -> ServiceCounters.parse(old, 0))
        .hasMessageContaining("demandfold_etcd_request_bytes_total{kind}");
  }

  @Test
  void shouldSumTheSamplesWithTheGivenLabelsAndSkipCommentsAndOddLines() {
    var s =
        ServiceCounters.samples(
            "# HELP x_total a counter\n"
                + "# TYPE x_total counter\n"
                + "x_total{a=\"1\",b=\"q\\\"uote\"} 2.5\n"
                + "x_total{a=\"2\",b=\"y\"} 1.5E1\n"
                + "x_total 4 1700000000000\n"
                + "garbage line without a value\n"
                + "y{a=\"1\"} +Inf\n");

    assertThat(ServiceCounters.sum(s, "x_total")).isEqualTo(21.5);
    assertThat(ServiceCounters.sum(s, "x_total", "a", "1")).isEqualTo(2.5);
    assertThat(ServiceCounters.sum(s, "x_total", "b", "q\\\"uote")).isEqualTo(2.5);
    assertThat(ServiceCounters.sum(s, "x_total", "a", "3")).isNaN();
    assertThat(ServiceCounters.sum(s, "y")).isInfinite();
  }
}
