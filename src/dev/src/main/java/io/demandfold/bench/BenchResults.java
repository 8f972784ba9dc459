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

  /** The figures of {@code keys}, each times {@code scale}, in {@code format} (root locale). */
  String format(String format, double scale, String... keys) {
    Object[] values = new Object[keys.length];
    for (int i = 0; i < keys.length; i++) {
      values[i] = number(keys[i]) * scale;
    }
    return String.format(java.util.Locale.ROOT, format, values);
  }

  /** Writes every figure as one JSON object. */
  public void writeJson(Path file) throws IOException {
    StringBuilder sb = new StringBuilder("{\n");
    int i = 0;
    for (Map.Entry<String, Object> e : figures.entrySet()) {
      sb.append("  \"").append(e.getKey()).append("\": ");
      appendJson(sb, e.getValue());
      sb.append(++i < figures.size() ? ",\n" : "\n");
    }
    sb.append("}\n");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
  }

  /** A figure as JSON: numbers, booleans, strings, and lists and maps of them (a sweep's steps). */
  static void appendJson(StringBuilder sb, Object v) {
    if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
      sb.append("null"); // not measured (e.g. nothing happened to time); JSON has no NaN
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v instanceof Double d ? String.format(Locale.ROOT, "%.4f", d) : v.toString());
    } else if (v instanceof List<?> list) {
      sb.append('[');
      for (int i = 0; i < list.size(); i++) {
        sb.append(i == 0 ? "" : ", ");
        appendJson(sb, list.get(i));
      }
      sb.append(']');
    } else if (v instanceof Map<?, ?> map) {
      sb.append('{');
      int i = 0;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        sb.append(i++ == 0 ? "" : ", ");
        appendJson(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        appendJson(sb, e.getValue());
      }
      sb.append('}');
    } else {
      sb.append('"')
          .append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\""))
          .append('"');
    }
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
    if (get("etcd_value_bytes_per_shard") != null) {
      rows.add(
          new String[] {
            "    etcd value bytes per shard (shard + table records)",
            fmt("etcd_value_bytes_per_shard")
                + " ("
                + fmt("etcd_shard_value_bytes_per_shard")
                + " + "
                + fmt("etcd_table_value_bytes_per_shard")
                + ")",
            "<= 600"
          });
      rows.add(
          new String[] {
            "    changelog bytes per shard (live)", fmt("changelog_bytes_per_shard"), ""
          });
    }
    if (get("latency_sweep") instanceof List<?> sweep) {
      rows.add(
          new String[] {
            "(d) produce -> etcd: offered, p50 / p99 / max; etcd requests/s, KB/s", "", ""
          });
      for (Object o : sweep) {
        Map<?, ?> step = (Map<?, ?>) o;
        rows.add(
            new String[] {
              "    "
                  + step.get("step")
                  + ", "
                  + fmt(step.get("offered_events_per_s"))
                  + " events/s",
              fmt(step.get("p50_ms"))
                  + " / "
                  + fmt(step.get("p99_ms"))
                  + " / "
                  + fmt(step.get("max_ms"))
                  + " ms; "
                  + fmt(step.get("etcd_requests_per_s"))
                  + " req/s, "
                  + fmt(((Number) step.get("etcd_bytes_per_s")).doubleValue() / 1e3)
                  + " KB/s",
              goal(String.valueOf(step.get("step")))
            });
        if (o == sweep.get(0)) {
          rows.addAll(viewLagRow());
        }
      }
      rows.add(
          new String[] {
            "    worst p99 ratio of one step to the one before",
            ratio("latency_sweep_worst_step_ratio"),
            "<= 5"
          });
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
    rows.addAll(ScaleFigures.rows(this));
    rows.addAll(LiveScaleFigures.rows(this));
    rows.addAll(EtcdRewinds.rows(this));
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

  /**
   * The view's lag, beside the first step of (d), whose events it times; none when not measured.
   */
  private List<String[]> viewLagRow() {
    if (get("view_lag_p99_ms") == null) {
      return List.of();
    }
    return List.<String[]>of(
        new String[] {
          "      the same events, produce -> DemandView listener (view lag)",
          fmt("view_lag_p50_ms")
              + " / "
              + fmt("view_lag_p99_ms")
              + " / "
              + fmt("view_lag_max_ms")
              + " ms over "
              + fmt("view_lag_measured")
              + " events",
          ""
        });
  }

  /** The goal of a sweep step: p99 within 100 ms at 5,000/s, 1 s at 50 %, 3 s at 90 %. */
  private static String goal(String step) {
    if (step.startsWith("5,000/s")) {
      return "p99 <= 100 ms";
    }
    if (step.equals("50 %")) {
      return "p99 <= 1,000 ms";
    }
    return step.equals("90 %") ? "p99 <= 3,000 ms" : "";
  }

  private String fmt(String key) {
    return fmt(figures.get(key));
  }

  private static String fmt(Object v) {
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
