package io.demandfold.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.TableView;
import io.demandfold.core.Urgency;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The view's builder checks, and the orders of {@code top}, without etcd. */
class DemandViewBuilderTest {

  @Test
  void shouldRefuseBadOptionsNamingThem() {
    assertThatThrownBy(() -> DemandView.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("endpoints(...)")
        .hasMessageContaining("neither");
    assertThatThrownBy(() -> DemandView.builder().endpoints(List.of()))
        .hasMessageContaining("endpoints");
    assertThatThrownBy(() -> DemandView.builder().endpoints(List.of("etcd:2379")))
        .hasMessageContaining("is not a URL");
    assertThatThrownBy(
            () ->
                DemandView.builder()
                    .endpoints(List.of("http://127.0.0.1:1", "https://127.0.0.1:2"))
                    .build())
        .hasMessageContaining("mixes http:// and https://");
    assertThatThrownBy(() -> DemandView.builder().prefix("demandfold"))
        .hasMessageContaining("etcd.prefix");
    assertThatThrownBy(() -> DemandView.builder().pageBytes(10)).hasMessageContaining("pageBytes");
    assertThatThrownBy(() -> DemandView.builder().queueBytes(10))
        .hasMessageContaining("queueBytes");
    assertThatThrownBy(() -> DemandView.builder().progressInterval(Duration.ofMillis(1)))
        .hasMessageContaining("progressInterval");
    assertThatThrownBy(() -> DemandView.builder().requestTimeout(Duration.ZERO))
        .hasMessageContaining("requestTimeout");
    assertThatThrownBy(() -> DemandView.builder().tls(null, new java.io.File("c"), null))
        .hasMessageContaining("key");
  }

  @Test
  void shouldSayWhyItCannotStartWhenEtcdIsUnreachable() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    DemandView view =
        DemandView.builder()
            .endpoints(List.of("http://127.0.0.1:" + port))
            .requestTimeout(Duration.ofSeconds(2))
            .build();
    assertThatThrownBy(view::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("DemandView cannot read /demandfold/demand/ from etcd")
        .hasMessageContaining("127.0.0.1:" + port);
    assertThat(view.status().live()).isFalse();
    view.close();
  }

  private static TableDemand t(String target, long pending, long bytes, Long oldest, Urgency u) {
    OptionalLong o = oldest == null ? OptionalLong.empty() : OptionalLong.of(oldest);
    return new TableDemand(target, new TableView(pending, bytes, o, o, 1), 1, u);
  }

  @Test
  void shouldOrderByEachRankingWithTiesByTarget() {
    List<TableDemand> all =
        List.of(
            t("a", 5, 10, 300L, Urgency.PENDING),
            t("b", 9, 5, 100L, Urgency.DUE),
            t("c", 300, 1, null, Urgency.CRITICAL),
            t("d", 5, 10, 200L, Urgency.PENDING));
    assertThat(sorted(all, DemandView.Order.URGENCY)).containsExactly("c", "b", "d", "a");
    assertThat(sorted(all, DemandView.Order.PENDING_GENERATIONS))
        .containsExactly("c", "b", "a", "d");
    assertThat(sorted(all, DemandView.Order.PENDING_BYTES)).containsExactly("a", "d", "b", "c");
    assertThat(sorted(all, DemandView.Order.OLDEST_PENDING)).containsExactly("b", "d", "a", "c");
  }

  private static List<String> sorted(List<TableDemand> all, DemandView.Order order) {
    List<TableDemand> s = new ArrayList<>(all);
    s.sort(order.comparator());
    return s.stream().map(TableDemand::target).toList();
  }
}
