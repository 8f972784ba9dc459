package io.demandfold.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/prometheus/alerts.yml}: valid for Prometheus ({@code promtool check rules}), its
 * unit tests pass ({@code promtool test rules alerts.test.yml}), every alert is tested firing and
 * quiet, every metric it reads is documented, and every alert links to its runbook, a section of
 * docs/observability.md.
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
          "DemandfoldOldestExactPendingFlush",
          "DemandfoldStreamThreadReplaced",
          "DemandfoldEtcdRewound",
          "DemandfoldHttpErrors",
          "DemandfoldViewBehind");

  /** Where the runbooks are: the sections of docs/observability.md in the repository. */
  static final String RUNBOOKS =
      "https://github.com/demandfold/demandfold/blob/main/docs/observability.md#";

  private static final Pattern HEADING = Pattern.compile("(?m)^#+ (.+)$");
  private static final Pattern CODE_BLOCK = Pattern.compile("(?s)```.*?```");

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
    for (JsonNode r : rules()) {
      Matcher m = METRIC.matcher(r.get("expr").asText());
      while (m.find()) {
        String metric = m.group(1);
        assertThat(DocumentedMetrics.documents(metric))
            .as(
                "%s reads %s, which the Metrics table of docs/http-api.md (or the view's Meters in"
                    + " docs/consumers.md) documents",
                r.get("alert"), metric)
            .isTrue();
      }
    }
  }

  @Test
  void shouldLinkEveryAlertToItsSectionOfTheObservabilityPage() throws Exception {
    Set<String> anchors = anchors(Files.readString(Path.of("docs/observability.md")));
    Matcher site =
        Pattern.compile("<url>([^<]+)</url>").matcher(Files.readString(Path.of("pom.xml")));
    if (site.find()) {
      // the project's first <url> is its own (the lead's poms give one; today's pom has none)
      assertThat(RUNBOOKS).startsWith(site.group(1) + "/");
    }
    for (JsonNode r : rules()) {
      String name = r.get("alert").asText();
      String url = r.at("/annotations/runbook_url").asText();
      assertThat(url).as("%s's runbook_url", name).startsWith(RUNBOOKS);
      String anchor = url.substring(RUNBOOKS.length());
      assertThat(anchors)
          .as("%s's runbook, docs/observability.md#%s", name, anchor)
          .contains(anchor);
      assertThat(anchor).as("a section of its own, named after the alert").isEqualTo(anchor(name));
    }
  }

  @Test
  void shouldNameAnchorsAsGitHubDoes() {
    assertThat(
            anchors("## Alerts\n### `DemandfoldDown`\n## When a stream thread fails\n## Alerts\n"))
        .containsExactlyInAnyOrder(
            "alerts", "demandfolddown", "when-a-stream-thread-fails", "alerts-1");
    assertThat(anchors("```\n# not a heading\n```\n## A new `application.id`"))
        .containsExactly("a-new-applicationid");
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
  static String anchor(String heading) {
    return heading
        .trim()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}\\- _]", "")
        .replace(' ', '-');
  }

  /** The anchors of every heading of {@code markdown} (code blocks apart), repeats numbered. */
  static Set<String> anchors(String markdown) {
    Set<String> out = new HashSet<>();
    Matcher m = HEADING.matcher(CODE_BLOCK.matcher(markdown).replaceAll(""));
    while (m.find()) {
      String a = anchor(m.group(1));
      String unique = a;
      for (int n = 1; out.contains(unique); n++) {
        unique = a + "-" + n;
      }
      out.add(unique);
    }
    return out;
  }
}
