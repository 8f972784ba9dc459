package io.demandfold.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * documented metrics (docs/http-api.md; the view's meters, docs/consumers.md), through a data
 * source variable so that it imports into any Grafana; {@code PrometheusIT} runs every query
 * against a real Prometheus.
 */
class GrafanaDashboardTest {
  static final Path DASHBOARD = Path.of("deploy/grafana/demandfold.json");
  private static final Pattern METRIC =
      Pattern.compile(
          "\\b((?:demandfold|kafka|jvm|process|system)_[a-z0-9_]+|up)\\b(?=\\s*[{\\[()]|$)");

  /** What every panel, query and variable names as its data source: the variable. */
  private static final String DATASOURCE = "${datasource}";

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
    JsonNode instance = variable(d, "instance");
    assertThat(instance.get("allValue").asText()).isEqualTo(".*");
    assertThat(instance.at("/datasource/uid").asText()).isEqualTo(DATASOURCE);
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
      assertThat(p.at("/datasource/uid").asText())
          .as(p.get("title").asText())
          .isEqualTo(DATASOURCE);
      assertThat(p.get("targets")).as(p.get("title").asText()).isNotEmpty();
      for (JsonNode t : p.get("targets")) {
        assertThat(t.get("expr").asText()).as(p.get("title").asText()).isNotBlank();
        assertThat(t.at("/datasource/uid").asText())
            .as("a query of '%s'", p.get("title").asText())
            .isEqualTo(DATASOURCE);
      }
    }
  }

  /**
   * Importable into an existing Grafana: Grafana's import asks for the {@code __inputs} (a
   * Prometheus data source) and puts the one chosen into the data source variable, which every
   * panel, query and variable uses; no data source uid is written into the file (a provisioned
   * Grafana, as in docker-compose.yml, falls back to its default data source).
   */
  @Test
  void shouldImportIntoAnyGrafanaThroughADataSourceVariable() throws Exception {
    JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
    JsonNode inputs = d.get("__inputs");
    assertThat(inputs).as("__inputs").hasSize(1);
    JsonNode input = inputs.get(0);
    assertThat(input.get("type").asText()).isEqualTo("datasource");
    assertThat(input.get("pluginId").asText()).isEqualTo("prometheus");
    String name = input.get("name").asText();

    JsonNode variable = variable(d, "datasource");
    assertThat(variable.get("type").asText()).isEqualTo("datasource");
    assertThat(variable.get("query").asText()).isEqualTo("prometheus");
    assertThat(variable.at("/current/value").asText()).isEqualTo("${" + name + "}");
    assertThat(d.at("/templating/list/0").get("name").asText())
        .as("the data source variable first: the others query through it")
        .isEqualTo("datasource");

    // every data source reference in the file is the variable; no other uid than the dashboard's
    // own
    List<JsonNode> references = d.findValues("datasource");
    assertThat(references).hasSizeGreaterThan(panels().size());
    for (JsonNode r : references) {
      assertThat(r.path("uid").asText()).as("a data source reference: %s", r).isEqualTo(DATASOURCE);
    }
    List<String> uids = new ArrayList<>();
    d.findValues("uid").forEach(u -> uids.add(u.asText()));
    assertThat(uids).filteredOn(u -> !u.equals(DATASOURCE)).containsExactly(d.get("uid").asText());
  }

  @Test
  void shouldShowEveryMeterOfTheSchedulersViews() throws Exception {
    List<String> exprs = new ArrayList<>();
    for (JsonNode p : panels()) {
      p.get("targets").forEach(t -> exprs.add(t.get("expr").asText()));
    }
    for (String meter : DocumentedMetrics.viewMeters()) {
      assertThat(exprs).as("a panel reads %s", meter).anyMatch(e -> e.contains(meter));
    }
    assertThat(DocumentedMetrics.viewMeters()).hasSizeGreaterThanOrEqualTo(5);
  }

  /** The templating variable named {@code name}. */
  static JsonNode variable(JsonNode dashboard, String name) {
    for (JsonNode v : dashboard.at("/templating/list")) {
      if (v.get("name").asText().equals(name)) {
        return v;
      }
    }
    throw new AssertionError("the dashboard has no variable " + name);
  }

  @Test
  void shouldReadOnlyDocumentedMetrics() throws Exception {
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
          assertThat(DocumentedMetrics.documents(metric))
              .as(
                  "panel '%s' reads %s, which docs/http-api.md (or docs/consumers.md) documents",
                  p.get("title").asText(), metric)
              .isTrue();
        }
      }
    }
    assertThat(seen).isGreaterThanOrEqualTo(20);
  }
}
