package io.demandfold.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The figures of one run, printed as a table and written as JSON. */
public final class BenchResults {
  private final Map<String, Object> figures = new LinkedHashMap<>();

  void put(String key, Object value) {
    figures.put(key, value);
  }

  public Object get(String key) {
    return figures.get(key);
  }

  double number(String key) {
    Object v = figures.get(key);
    return v instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  /** Writes every figure as one JSON object. */
  public void writeJson(Path file) throws IOException {
    StringBuilder sb = new StringBuilder("{\n");
    int i = 0;
    for (Map.Entry<String, Object> e : figures.entrySet()) {
      sb.append("  \"").append(e.getKey()).append("\": ");
      Object v = e.getValue();
      if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
        sb.append("null"); // not measured (e.g. nothing happened to time); JSON has no NaN
      } else if (v instanceof Number || v instanceof Boolean) {
        sb.append(v instanceof Double d ? String.format(Locale.ROOT, "%.4f", d) : v.toString());
      } else {
        sb.append('"').append(String.valueOf(v).replace("\"", "\\\"")).append('"');
      }
      sb.append(++i < figures.size() ? ",\n" : "\n");
    }
    sb.append("}\n");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
  }

  /** The summary table with the ratios against the goals. */
  public void print(PrintWriter out) {
    // rows of a measure that did not run (--skip) are left out
    List<String[]> rows = new ArrayList<>();
    if (get("events") != null) {
      rows.addAll(
          Arrays.asList(
              new String[][] {
                {
                  "events (shards), JSON share",
                  fmt("events") + " (" + fmt("shards") + "), " + get("json_share_of_events"),
                  ""
                },
                {"(a) limit: plain consumer", fmt("limit_events_per_s") + " events/s", ""},
                {
                  "(a2) decode limit: group consumer + decoder",
                  fmt("limit_decode_events_per_s") + " events/s",
                  ""
                },
                {
                  "(b) demandfold, mirror on",
                  fmt("pipeline_events_per_s") + " events/s",
                  ">= 150,000"
                },
                {
                  "    folded / etcd equal to the fold after",
                  f1("pipeline_fold_seconds") + " / " + f1("pipeline_converge_seconds") + " s",
                  ""
                },
                {"    b/a", ratio("ratio_pipeline_to_limit"), ""},
                {"    b/a2", ratio("ratio_pipeline_to_decode_limit"), ">= 0.25"},
                {
                  "    process CPU per event",
                  f1("pipeline_process_cpu_us_per_event") + " us",
                  "<= 15 us"
                },
                {
                  "    Kafka bytes written per event",
                  fmt("kafka_bytes_written_per_event"),
                  "<= 500"
                },
                {"    etcd requests per event", f4("etcd_requests_per_event"), "<= 0.01"},
                {
                  "    peak heap / peak dirty keys",
                  fmt("pipeline_peak_heap_mib") + " MiB / " + fmt("pipeline_peak_dirty_keys"),
                  ""
                },
              }));
    }
    if (get("reference_events_per_s") != null) {
      rows.addAll(
          Arrays.asList(
              new String[][] {
                {
                  "(c) reference: per-event CAS, " + fmt("reference_publishers") + " publishers",
                  fmt("reference_events_per_s") + " events/s",
                  ""
                },
                {
                  "    reference etcd requests per event",
                  f4("reference_etcd_requests_per_event"),
                  ""
                },
                {"    b/c", ratio("ratio_pipeline_to_reference"), ">= 30"},
              }));
    }
    if (get("latency_p50_ms") != null) {
      rows.addAll(
          Arrays.asList(
              new String[][] {
                {
                  "(d) latency at "
                      + fmt("latency_offered_events_per_s")
                      + " events/s: p50 / p99 / max",
                  fmt("latency_p50_ms")
                      + " / "
                      + fmt("latency_p99_ms")
                      + " / "
                      + fmt("latency_max_ms")
                      + " ms",
                  "p99 <= " + fmt("latency_goal_ms") + " ms"
                },
                {
                  "    at half of (b), "
                      + fmt("latency_load_offered_events_per_s")
                      + " events/s: p50 / p99 / max",
                  fmt("latency_load_p50_ms")
                      + " / "
                      + fmt("latency_load_p99_ms")
                      + " / "
                      + fmt("latency_load_max_ms")
                      + " ms",
                  "p99 <= 1,000 ms"
                },
              }));
    }
    if (get("heap_mib_100k_shards") != null) {
      rows.addAll(
          Arrays.asList(
              new String[][] {
                {
                  "(e) heap after folding "
                      + fmt("memory_shards")
                      + " shards (-Xmx"
                      + get("memory_xmx")
                      + ")",
                  fmt("heap_mib_100k_shards") + " MiB",
                  "<= 512 MiB"
                },
              }));
    }
    rows.addAll(ScaleOutFigures.rows(this));
    rows.addAll(
        Arrays.asList(
            new String[][] {
              {"join, one thread", fmt("join_events_per_s") + " events/s", ">= 5,000,000 (JMH)"},
            }));
    int w0 = 0;
    int w1 = 0;
    for (String[] r : rows) {
      w0 = Math.max(w0, r[0].length());
      w1 = Math.max(w1, r[1].length());
    }
    for (String[] r : rows) {
      out.printf("%-" + w0 + "s  %" + w1 + "s  %s%n", r[0], r[1], r[2]);
    }
    out.flush();
  }

  private String fmt(String key) {
    Object v = figures.get(key);
    if (v instanceof Double d) {
      return String.format(Locale.ROOT, "%,.0f", d);
    }
    if (v instanceof Number n) {
      return String.format(Locale.ROOT, "%,d", n.longValue());
    }
    return String.valueOf(v);
  }

  private String f4(String key) {
    return String.format(Locale.ROOT, "%.4f", number(key));
  }

  private String f1(String key) {
    return String.format(Locale.ROOT, "%.1f", number(key));
  }

  private String ratio(String key) {
    return String.format(Locale.ROOT, "%.2f", number(key));
  }
}
