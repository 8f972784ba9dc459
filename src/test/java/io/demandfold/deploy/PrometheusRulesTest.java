package io.demandfold.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
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
 * {@code deploy/prometheus/alerts.yml}: valid for Prometheus ({@code promtool check rules}), its
 * unit tests pass ({@code promtool test rules alerts.test.yml}), every alert is tested firing and
 * quiet, and every metric it reads is one docs/http-api.md documents.
 */
class PrometheusRulesTest {
  static final Path RULES = Path.of("deploy/prometheus/alerts.yml");
  static final Path TESTS = Path.of("deploy/prometheus/alerts.test.yml");

  /** What an operator of this service must hear about (issue: Prometheus, for real). */
  private static final List<String> REQUIRED =
      List.of(
          "DemandfoldStreamThreadNotRunning",
          "DemandfoldDeadLetters",
          "DemandfoldMirrorLagging",
          "DemandfoldEtcdRefusesRecords",
          "DemandfoldEtcdWritesFailing",
          "DemandfoldOldestExactPendingFlush");

  private static final Pattern METRIC = Pattern.compile("\\b((?:demandfold|kafka)_[a-z0-9_]+)\\b");

  static List<JsonNode> rules() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode group : new YAMLMapper().readTree(RULES.toFile()).get("groups")) {
      group.get("rules").forEach(out::add);
    }
    return out;
  }

  @Test
  void shouldBeValidRulesWhoseUnitTestsPass() throws Exception {
    Promtool.Result check = Promtool.run("check", "rules", RULES.toString());
    assertThat(check.exit()).as(check.output()).isZero();
    Promtool.Result test = Promtool.run("test", "rules", TESTS.toString());
    assertThat(test.exit()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @Test
  void shouldGiveEveryAlertASeverityAnExplanationAndAForClause() throws Exception {
    List<JsonNode> rules = rules();
    assertThat(rules).extracting(r -> r.path("alert").asText()).containsAll(REQUIRED);
    for (JsonNode r : rules) {
      String name = r.path("alert").asText();
      assertThat(name).as("a recording rule in the alert file").isNotEmpty();
      assertThat(r.has("for")).as("%s has a for: clause", name).isTrue();
      assertThat(r.at("/labels/severity").asText()).as(name).isIn("critical", "warning");
      assertThat(r.at("/annotations/summary").asText()).as(name).isNotBlank();
      assertThat(r.at("/annotations/description").asText()).as(name).isNotBlank();
    }
  }

  @Test
  void shouldTestEveryAlertFiringAndQuiet() throws Exception {
    Set<String> fires = new HashSet<>();
    Set<String> quiet = new HashSet<>();
    for (JsonNode test : new YAMLMapper().readTree(TESTS.toFile()).get("tests")) {
      for (JsonNode t : test.path("alert_rule_test")) {
        (t.path("exp_alerts").isEmpty() ? quiet : fires).add(t.get("alertname").asText());
      }
    }
    for (JsonNode r : rules()) {
      String name = r.get("alert").asText();
      assertThat(fires).as("a test where %s fires", name).contains(name);
      assertThat(quiet).as("a test where %s stays quiet", name).contains(name);
    }
  }

  @Test
  void shouldReadOnlyDocumentedMetrics() throws Exception {
    List<Docs.Metric> documented = Docs.metrics();
    for (JsonNode r : rules()) {
      Matcher m = METRIC.matcher(r.get("expr").asText());
      while (m.find()) {
        String metric = m.group(1);
        assertThat(documented)
            .as(
                "%s reads %s, which the Metrics table of docs/http-api.md documents",
                r.get("alert"), metric)
            .anyMatch(
                d ->
                    d.isFamily()
                        ? metric.startsWith(d.name().replace("*", ""))
                        : metric.equals(d.name()));
      }
    }
  }
}
