package io.demandfold.view;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandClasses;
import io.demandfold.docs.Docs;
import io.demandfold.mirror.EtcdLayout;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The view's meters as Prometheus names them, each a row of docs/consumers.md's Meters table. */
class ViewMetersTest {

  @Test
  void shouldDocumentEveryMeterOfTheViewInTheConsumersPage() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EtcdLayout layout = new EtcdLayout("/df");
    ViewState state =
        new ViewState(
            new ViewRecords(layout, Set.of()), Set.of(), DemandClasses.defaults(), () -> 0L);
    try (ViewMeters meters =
        new ViewMeters(registry, "/df", state, () -> 0, () -> 0, () -> false)) {
      List<String> exposed = Docs.exposedMetricNames(registry);
      assertThat(exposed)
          .contains(
              "demandfold_view_queue_bytes",
              "demandfold_view_listener_errors_total",
              "demandfold_view_failed",
              "demandfold_view_resyncs_total");
      String table = Docs.section("docs/consumers.md", "Meters");
      assertThat(exposed).allSatisfy(name -> assertThat(table).contains("| `" + name + "` |"));
    }
  }
}
