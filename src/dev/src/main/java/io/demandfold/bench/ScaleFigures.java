package io.demandfold.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The rows of the million-shard measure (g) in the printed table. */
final class ScaleFigures {
  private ScaleFigures() {}

  /**
   * Puts what the mirror of (g)'s service wrote and sent etcd, from its counters when etcd equalled
   * the fold ({@code c}, counted from the service's start) over the {@code seconds} it took.
   */
  static void putMirror(BenchResults r, ServiceCounters c, double seconds) {
    ServiceCounters zero = new ServiceCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    r.put("scale_mirror_keys_per_s", c.keysSince(zero) / seconds);
    r.put("scale_mirror_keys_per_txn", c.keysPerTxnSince(zero));
    r.put("scale_mirror_shard_keys", (long) c.shardKeys());
    r.put("scale_mirror_table_keys", (long) c.tableKeys());
    r.put("scale_mirror_transactions", (long) (c.shardTxns() + c.tableTxns()));
    r.put("scale_etcd_requests", (long) c.requests());
    r.put("scale_etcd_shard_request_bytes", (long) c.shardBytes());
    r.put("scale_etcd_table_request_bytes", (long) c.tableBytes());
  }

  static List<String[]> rows(BenchResults r) {
    List<String[]> rows = new ArrayList<>();
    if (r.get("scale_events_per_s") == null) {
      return rows;
    }
    rows.add(
        new String[] {
          f("(g) %,d shards, %,d events, mirror on", "scale_shards", "scale_events", r),
          f("%,.0f events/s", "scale_events_per_s", r),
          r.get("pipeline_events_per_s") == null
              ? ">= half of (b)"
              : String.format(
                  Locale.ROOT, ">= %,.0f (half of (b))", r.number("pipeline_events_per_s") / 2)
        });
    rows.add(
        new String[] {
          "    folded / etcd equal to the fold after",
          f("%.1f / %.1f s", "scale_fold_seconds", "scale_converge_seconds", r),
          ""
        });
    if (r.get("scale_mirror_keys_per_s") != null) {
      rows.add(
          new String[] {
            "    mirror: keys written per second, keys per transaction",
            f("%,.0f, %.1f", "scale_mirror_keys_per_s", "scale_mirror_keys_per_txn", r),
            ">= half of etcd's rate at that batch"
          });
      rows.add(
          new String[] {
            "    etcd request bytes: shard / table records",
            r.format(
                "%,.0f / %,.0f MB",
                1e-6, "scale_etcd_shard_request_bytes", "scale_etcd_table_request_bytes"),
            "table <= shard"
          });
    }
    rows.add(
        new String[] {
          "    etcd value bytes / dbSize per shard (compacted, defragmented)",
          f(
              "%,.0f / %,.0f",
              "scale_etcd_value_bytes_per_shard", "scale_etcd_db_bytes_per_shard", r),
          f("dbSize <= 1 GB (%,.0f MB)", "scale_etcd_db_bytes", r, 1e-6)
        });
    rows.add(
        new String[] {
          "    changelog bytes per shard (live)",
          f("%,.0f", "scale_changelog_bytes_per_shard", r),
          ""
        });
    rows.add(
        new String[] {
          "    service peak heap / peak RSS (-Xmx" + r.get("scale_service_xmx") + ")",
          f("%,.0f / %,.0f MiB", "scale_heap_mib", "scale_rss_mib", r),
          "heap <= 1,024 MiB"
        });
    rows.add(
        new String[] {
          "    restart with a wiped state directory: ready after",
          f("%.1f s", "scale_restore_seconds", r),
          ""
        });
    rows.add(
        new String[] {
          "    audit / rebuild (-Xmx" + r.get("scale_ops_xmx") + "): time",
          outcome("scale_audit", r) + " / " + outcome("scale_rebuild", r),
          "complete"
        });
    rows.add(
        new String[] {
          "    audit / rebuild: peak heap",
          f("%,.0f / %,.0f MiB", "scale_audit_heap_mib", "scale_rebuild_heap_mib", r),
          ""
        });
    return rows;
  }

  /** A command's seconds, or FAILED. */
  private static String outcome(String command, BenchResults r) {
    return r.get(command + "_failed") != null || r.get(command + "_seconds") == null
        ? "FAILED"
        : String.format(Locale.ROOT, "%.1f s", r.number(command + "_seconds"));
  }

  private static String f(String format, String key, BenchResults r) {
    return String.format(Locale.ROOT, format, value(key, r));
  }

  private static String f(String format, String key, BenchResults r, double scale) {
    return String.format(Locale.ROOT, format, r.number(key) * scale);
  }

  private static String f(String format, String a, String b, BenchResults r) {
    return String.format(Locale.ROOT, format, value(a, r), value(b, r));
  }

  private static Object value(String key, BenchResults r) {
    Object v = r.get(key);
    return v instanceof Number n && !(v instanceof Double) ? n.longValue() : r.number(key);
  }
}
