package io.demandfold.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.docs.Docs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/grafana/demandfold.json}: a dashboard whose panels each query Prometheus with
 * metrics docs/http-api.md documents; {@code PrometheusIT} runs every query against a real
 * Prometheus.
 */
class GrafanaDashboardTest {
  static final Path DASHBOARD = Path.of("deploy/grafana/demandfold.json");
  private static final Pattern METRIC =
      Pattern.compile(
          "\\b((?:demandfold|kafka|jvm|process|system)_[a-z0-9_]+|up)\\b(?=\\s*[{\\[(]|$)");

  /** Every panel but rows. */
  static List<JsonNode> panels() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode p : new ObjectMapper().readTree(DASHBOARD.toFile()).get("panels")) {
      if (!p.get("type").asText().equals("row")) {
        out.add(p);
      }
    }
    return out;
  }

  @Test
  void shouldQueryPrometheusFromEveryPanelLaidOutOnTheGrid() throws Exception {
    JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertThat(d.get("uid").asText()).isEqualTo("demandfold");
    assertThat(d.at("/templating/list/0/name").asText()).isEqualTo("instance");
    assertThat(d.at("/templating/list/0/allValue").asText()).isEqualTo(".*");
    List<JsonNode> panels = panels();
    assertThat(panels).hasSizeGreaterThanOrEqualTo(15);
    Set<Integer> ids = new HashSet<>();
    for (JsonNode p : new ObjectMapper().readTree(DASHBOARD.toFile()).get("panels")) {
      assertThat(ids.add(p.get("id").asInt())).as("panel id %s is unique", p.get("id")).isTrue();
      JsonNode g = p.get("gridPos");
      assertThat(g.get("x").asInt() + g.get("w").asInt())
          .as(p.get("title").asText())
          .isLessThanOrEqualTo(24);
    }
    for (JsonNode p : panels) {
      assertThat(p.at("/datasource/type").asText()).isEqualTo("prometheus");
      assertThat(p.get("targets")).as(p.get("title").asText()).isNotEmpty();
      for (JsonNode t : p.get("targets")) {
        assertThat(t.get("expr").asText()).as(p.get("title").asText()).isNotBlank();
      }
    }
  }

  @Test
  void shouldReadOnlyDocumentedMetrics() throws Exception {
    List<Docs.Metric> documented = Docs.metrics();
    int seen = 0;
    for (JsonNode p : panels()) {
      for (JsonNode t : p.get("targets")) {
        Matcher m = METRIC.matcher(t.get("expr").asText());
        while (m.find()) {
          String metric = m.group(1);
          seen++;
          if (metric.equals("up")) {
            continue; // Prometheus's own
          }
          assertThat(documented)
              .as(
                  "panel '%s' reads %s, which docs/http-api.md documents",
                  p.get("title").asText(), metric)
              .anyMatch(
                  d ->
                      d.isFamily()
                          ? metric.startsWith(d.name().replace("*", ""))
                          : metric.equals(d.name())
                              || metric.matches(Pattern.quote(d.name()) + "_(count|sum|max)"));
        }
      }
    }
    assertThat(seen).isGreaterThanOrEqualTo(20);
  }
}
