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
    List<String> exposed = Docs.exposedMetricNames(registry);
    assertThat(exposed).hasSize(4);
    assertThat(Docs.documentedMetricNames()).containsAll(exposed);
    gauges.close();
    assertThat(registry.scrape()).isEmpty();
  }
}
