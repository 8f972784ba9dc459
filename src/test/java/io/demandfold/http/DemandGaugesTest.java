package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.docs.Docs;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemandGaugesTest {
  @Test
  void shouldBeDocumentedInTheMetricsTableAndGoAwayOnClose() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    DemandGauges gauges = new DemandGauges(registry, new DemandHistory(new FakeStore(), () -> 0L));
    List<String> exposed =
        registry
            .scrape()
            .lines()
            .filter(l -> l.startsWith("# TYPE "))
            .map(l -> l.split(" ")[2])
            .toList();
    assertThat(exposed).hasSize(4);
    assertThat(Docs.metrics().stream().map(Docs.Metric::name).toList()).containsAll(exposed);
    gauges.close();
    assertThat(registry.scrape()).isEmpty();
  }
}
