package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.docs.Docs;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus scraping a running instance: the metrics of the table in docs/http-api.md
 * arrive with the documented labels and sane values (the folded counter's increase equals the
 * events sent), the alert rules of {@code deploy/prometheus/alerts.yml} evaluate without error (and
 * the dead-letter alert goes off), and every query of the Grafana dashboard parses and returns
 * data.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PrometheusIT {
  private static final Path RULES = Path.of("deploy/prometheus/alerts.yml");
  private static final Path DASHBOARD = Path.of("deploy/grafana/demandfold.json");
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Pattern LABEL = Pattern.compile("`([a-z_]+)(?:=([^`]+))?`");
  private static final Pattern NAME = Pattern.compile("`([a-z]+_[a-z0-9_]+)`");

  @Test
  void shouldCarryTheDocumentedMetricsAlertsAndDashboardQueries(
      Services services, @TempDir Path work) throws Exception {
    try (Harness h = new Harness(services, "prometheus")) {
      Random rnd = new Random(41);
      List<DemandEvent> events = RandomStreams.stream(rnd, "prom", 6, 30, 1600);
      List<DemandEvent> first = events.subList(0, 700);
      List<DemandEvent> second = events.subList(700, events.size());
      DemandfoldService s = h.start();
      URI url = s.httpUrl().orElseThrow();
      String target = url.getHost() + ":" + url.getPort();
      try (PrometheusServer prom = PrometheusServer.start(work, target, List.of(RULES))) {
        await(prom, "up{job=\"demandfold\"}", 1);
        JsonNode targets = prom.api("api/v1/targets").get("activeTargets");
        assertThat(targets).hasSize(1);
        assertThat(targets.get(0).get("health").asText()).isEqualTo("up");
        assertThat(targets.at("/0/labels/instance").asText()).isEqualTo(target);

        // the folded counter's increase equals the events sent; dead letters likewise
        h.produceRaw("bad".getBytes(), "{".getBytes());
        h.produce(first, rnd);
        h.awaitEtcd(Harness.fold(first));
        JsonNode atT1 = await(prom, "sum(demandfold_events_folded_total)", first.size());
        String t1 = atT1.get(0).asText(); // the time of the sample that said so
        assertThat(value(prom, "sum(demandfold_dlq_total @ " + t1 + ")")).isEqualTo(1);
        h.produceRaw("bad".getBytes(), "{".getBytes());
        h.produceRaw("bad".getBytes(), "[".getBytes());
        h.produce(second, rnd);
        Fold all = Harness.fold(events);
        h.awaitEtcd(all);
        String increase =
            "sum(demandfold_events_folded_total) - sum(demandfold_events_folded_total @ "
                + t1
                + ")";
        await(prom, increase, second.size());
        assertThat(value(prom, increase)).isEqualTo(second.size());
        await(
            prom,
            "sum(demandfold_dlq_total{reason=\"undecodable\"})"
                + " - sum(demandfold_dlq_total{reason=\"undecodable\"} @ "
                + t1
                + ")",
            2);

        // the demand gauges equal the offline fold once the instance has sampled it
        long pending =
            all.targets().keySet().stream().mapToLong(t -> all.table(t).pendingGenerations()).sum();
        long withDemand =
            all.targets().keySet().stream()
                .filter(t -> all.table(t).pendingGenerations() > 0)
                .count();
        await(prom, "sum(demandfold_pending_generations)", pending);
        await(prom, "sum(demandfold_targets_pending)", withDemand);
        await(prom, "sum(demandfold_mirror_dirty_keys)", 0);
        assertThat(value(prom, "max(demandfold_mirror_lag_seconds)")).isZero();
        long oldestExact =
            all.targets().keySet().stream()
                .map(t -> all.table(t).oldestPendingExactMs())
                .filter(OptionalLong::isPresent)
                .mapToLong(OptionalLong::getAsLong)
                .min()
                .orElseThrow();
        JsonNode age = only(prom.query("demandfold_oldest_pending_exact_age_seconds"));
        double sampledAt = age.at("/value/0").asDouble();
        assertThat(age.at("/value/1").asDouble())
            .as("the age at the scrape of the oldest exact pending flush")
            .isCloseTo(
                sampledAt - oldestExact / 1000.0, org.assertj.core.api.Assertions.within(10.0));

        System.gc(); // jvm_gc_pause_seconds appears with the first collection
        Harness.await(
            "every metric of docs/http-api.md in Prometheus",
            () -> missingMetrics(prom),
            List::isEmpty,
            PATIENCE);
        assertDocumentedMetrics(prom, target);
        assertSaneValues(prom);
        assertRulesAndAlerts(prom);
        assertDashboardQueries(prom, target);
      }
    }
  }

  /**
   * Every row of the Metrics table of docs/http-api.md: present, with its labels and their values.
   */
  private static void assertDocumentedMetrics(PrometheusServer prom, String target)
      throws Exception {
    List<Docs.Metric> documented = Docs.metrics();
    assertThat(documented).hasSizeGreaterThan(20);
    for (Docs.Metric m : documented) {
      JsonNode result = prom.query(selector(m)).get("result");
      assertThat(result).as("%s in Prometheus", m.name()).isNotEmpty();
      for (JsonNode series : result) {
        assertThat(series.at("/metric/job").asText()).isEqualTo("demandfold");
        assertThat(series.at("/metric/instance").asText()).isEqualTo(target);
      }
      Map<String, Set<String>> labels = labels(m.labels());
      for (Map.Entry<String, Set<String>> l : labels.entrySet()) {
        Set<String> seen = new TreeSet<>();
        int with = 0;
        for (JsonNode series : result) {
          JsonNode v = series.get("metric").get(l.getKey());
          if (v != null) {
            with++;
            seen.add(v.asText());
          }
        }
        if (m.isFamily()) {
          assertThat(with).as("some series of %s has label %s", m.name(), l.getKey()).isPositive();
        } else {
          assertThat(with)
              .as("every series of %s has label %s", m.name(), l.getKey())
              .isEqualTo(result.size());
        }
        if (!l.getValue().isEmpty()) {
          assertThat(seen).as("values of %s{%s}", m.name(), l.getKey()).isEqualTo(l.getValue());
        }
      }
      // the names the meaning column gives as examples or siblings exist too
      Matcher n = NAME.matcher(m.meaning());
      while (n.find()) {
        String also = n.group(1);
        if (also.startsWith("demandfold_") || also.matches("(jvm|process|system|kafka)_.*")) {
          assertThat(prom.query(also).get("result")).as("%s in Prometheus", also).isNotEmpty();
        }
      }
    }
  }

  /** The documented metrics Prometheus has no series of yet (some appear late, e.g. GC pauses). */
  private static List<String> missingMetrics(PrometheusServer prom) {
    List<String> missing = new ArrayList<>();
    for (Docs.Metric m : Docs.metrics()) {
      try {
        if (prom.query(selector(m)).get("result").isEmpty()) {
          missing.add(m.name());
        }
      } catch (Exception e) {
        throw new IllegalStateException("querying Prometheus for " + m.name(), e);
      }
    }
    return missing;
  }

  /** The series of a documented metric: a family's by prefix, a summary's with its parts. */
  private static String selector(Docs.Metric m) {
    String name = m.name().replace("*", "");
    return m.isFamily()
        ? "{__name__=~\"" + name + ".+\"}"
        : "{__name__=~\"" + name + "|" + name + "_(count|sum|max)\"}";
  }

  /** {@code `kind=shard\|table`, `result`} as label name to documented values (empty: any). */
  private static Map<String, Set<String>> labels(String cell) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    Matcher m = LABEL.matcher(cell);
    while (m.find()) {
      Set<String> values = new TreeSet<>();
      if (m.group(2) != null) {
        for (String v : m.group(2).split("\\\\\\|")) {
          values.add(v);
        }
      }
      out.put(m.group(1), values);
    }
    return out;
  }

  private static void assertSaneValues(PrometheusServer prom) throws Exception {
    assertThat(values(prom, "kafka_stream_client_state")).as("RUNNING").containsOnly(2.0);
    assertThat(values(prom, "kafka_stream_thread_thread_state")).as("RUNNING").containsOnly(4.0);
    assertThat(value(prom, "sum(kafka_stream_alive_stream_threads)")).isGreaterThanOrEqualTo(1);
    assertThat(value(prom, "sum(demandfold_mirror_total{result=\"written\"})")).isPositive();
    assertThat(value(prom, "sum(demandfold_etcd_requests_total)")).isPositive();
    assertThat(value(prom, "sum(demandfold_http_requests_seconds_count{endpoint=\"metrics\"})"))
        .isPositive();
    assertThat(value(prom, "sum(jvm_memory_used_bytes{area=\"heap\"})")).isPositive();
    assertThat(value(prom, "jvm_threads_live_threads")).isPositive();
    assertThat(value(prom, "process_uptime_seconds")).isPositive();
    assertThat(value(prom, "system_cpu_count")).isGreaterThanOrEqualTo(1);
    assertThat(value(prom, "process_files_open_files")).isPositive();
    assertThat(value(prom, "process_cpu_usage")).isBetween(0.0, 1.0);
  }

  private static void assertRulesAndAlerts(PrometheusServer prom) throws Exception {
    List<JsonNode> rules = new ArrayList<>();
    for (JsonNode g : prom.api("api/v1/rules").get("groups")) {
      g.get("rules").forEach(rules::add);
    }
    int declared = 0;
    for (JsonNode g : new YAMLMapper().readTree(RULES.toFile()).get("groups")) {
      declared += g.get("rules").size();
    }
    assertThat(rules).hasSize(declared);
    for (JsonNode r : rules) {
      assertThat(r.get("health").asText())
          .as("%s: %s", r.get("name"), r.get("lastError"))
          .isEqualTo("ok");
    }
    // dead letters arrived; every table's exact age is months (the streams' clock is 2025)
    Set<String> expected = Set.of("DemandfoldDeadLetters", "DemandfoldOldestExactPendingFlush");
    Set<String> active = new HashSet<>();
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    do {
      active.clear();
      for (JsonNode a : prom.api("api/v1/alerts").get("alerts")) {
        active.add(a.at("/labels/alertname").asText());
        if (a.at("/labels/alertname").asText().equals("DemandfoldDeadLetters")) {
          assertThat(a.at("/labels/reason").asText()).isEqualTo("undecodable");
        }
      }
      Thread.sleep(500);
    } while (!active.containsAll(expected) && System.nanoTime() < deadline);
    assertThat(active).containsAll(expected);
    assertThat(active)
        .doesNotContain(
            "DemandfoldDown", "DemandfoldStreamThreadNotRunning", "DemandfoldMirrorLagging");
  }

  /** The result of {@code expr} over the last minute at 5 s steps, as the dashboard asks. */
  private static JsonNode rangeResult(PrometheusServer prom, String expr) {
    try {
      return prom.queryRange(expr, Duration.ofMinutes(1), Duration.ofSeconds(5)).get("result");
    } catch (Exception e) {
      throw new IllegalStateException("query " + expr, e);
    }
  }

  /** Every query of the Grafana dashboard, as Grafana sends it: it parses and returns data. */
  private static void assertDashboardQueries(PrometheusServer prom, String target)
      throws Exception {
    JsonNode dashboard = Api.JSON.readTree(DASHBOARD.toFile());
    int queries = 0;
    for (JsonNode panel : dashboard.get("panels")) {
      for (JsonNode t : panel.path("targets")) {
        String expr =
            t.get("expr")
                .asText()
                .replace("$__rate_interval", "15s")
                .replace("$__range", "1m")
                .replace("$instance", ".*");
        assertThat(expr).doesNotContain("$");
        JsonNode data = prom.queryRange(expr, Duration.ofMinutes(1), Duration.ofSeconds(5));
        if (expr.contains("demandfold_view_")) {
          continue; // a DemandView's meters, from a scheduler's process: the query parsed
        }
        // a rate needs two scrapes of a series within its window: a series that just appeared
        // (the first GC pause) answers once the next scrape is in
        Harness.await(
            "data for panel '" + panel.get("title").asText() + "': " + expr,
            () -> rangeResult(prom, expr),
            r -> !r.isEmpty(),
            PATIENCE);
        queries++;
      }
    }
    assertThat(queries).isGreaterThanOrEqualTo(20);
    // the instance variable: label_values(up{job="demandfold"}, instance)
    String variable = "";
    for (JsonNode v : dashboard.at("/templating/list")) {
      variable =
          v.get("name").asText().equals("instance") ? v.at("/query/query").asText() : variable;
    }
    Matcher m = Pattern.compile("label_values\\((.+), instance\\)").matcher(variable);
    assertThat(m.matches()).as(variable).isTrue();
    assertThat(prom.query(m.group(1)).get("result"))
        .extracting(r -> r.at("/metric/instance").asText())
        .containsExactly(target);
  }

  private static JsonNode only(JsonNode data) {
    assertThat(data.get("result")).hasSize(1);
    return data.get("result").get(0);
  }

  /** The single value of an instant query now. */
  private static double value(PrometheusServer prom, String promql) throws Exception {
    return only(prom.query(promql)).at("/value/1").asDouble();
  }

  private static List<Double> values(PrometheusServer prom, String promql) throws Exception {
    List<Double> out = new ArrayList<>();
    prom.query(promql).get("result").forEach(r -> out.add(r.at("/value/1").asDouble()));
    assertThat(out).as(promql).isNotEmpty();
    return out;
  }

  /**
   * Waits until {@code promql} has the single value {@code expected}, asserts it, and returns the
   * sample ([time, value]).
   */
  private static JsonNode await(PrometheusServer prom, String promql, double expected)
      throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    JsonNode sample = null;
    while (System.nanoTime() < deadline) {
      JsonNode result = prom.query(promql).get("result");
      if (result.size() == 1) {
        sample = result.get(0).get("value");
        if (sample.get(1).asDouble() == expected) {
          return sample;
        }
      }
      Thread.sleep(250);
    }
    assertThat(sample)
        .as("%s has a value (Prometheus's log: %s)", promql, prom.logText())
        .isNotNull();
    assertThat(sample.get(1).asDouble()).as(promql).isEqualTo(expected);
    return sample;
  }
}
