package io.demandfold.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The figures of the live million-shard measure (h): its results' keys and its table rows. */
final class LiveScaleFigures {
  /** The share of the offered rate below which the producer is said not to have kept it. */
  static final double KEPT = 0.98;

  private LiveScaleFigures() {}

  /**
   * What (h) measured.
   *
   * @param shards shards of the live fleet
   * @param offered events per second offered
   * @param achieved events per second the producer sent (all sent, over the offering)
   * @param seconds how long it offered
   * @param behindMs how far the producer fell behind its schedule at most
   * @param sampledTables tables whose shards were timed
   * @param sampledShards their shards
   * @param latency produce to etcd of the sampled shards' events
   * @param drainSeconds the wait, after the last event was sent, for the last timed ones
   * @param window the service's counters at the start and the end of the offering
   * @param firstMinute at the start and the end of its first minute
   * @param lastMinute of its last minute
   * @param firstMinuteP99Ms the largest 30-s fold delay p99 the service published in the first
   *     minute
   * @param lastMinuteP99Ms in the last minute
   * @param heapMib the service's peak heap (its GC log)
   * @param lagAtEnd events of the topic not committed by the service when the offering ended
   * @param serviceCores CPU the service used over the offering, in cores
   * @param etcdCores etcd's
   * @param benchCores the bench's own (producer and watch)
   */
  record Figures(
      long shards,
      int offered,
      double achieved,
      double seconds,
      double behindMs,
      int sampledTables,
      long sampledShards,
      LiveLatency.Result latency,
      double drainSeconds,
      ServiceCounters[] window,
      ServiceCounters[] firstMinute,
      ServiceCounters[] lastMinute,
      double firstMinuteP99Ms,
      double lastMinuteP99Ms,
      double heapMib,
      long lagAtEnd,
      double serviceCores,
      double etcdCores,
      double benchCores) {

    /** Whether the producer kept the offered rate. */
    boolean keptRate() {
      return achieved >= offered * KEPT;
    }
  }

  /** Puts every figure of (h) under its {@code live_scale_} key. */
  static void put(BenchResults r, Figures f) {
    ServiceCounters a = f.window()[0];
    ServiceCounters b = f.window()[1];
    double s = b.secondsSince(a);
    r.put("live_scale_shards", f.shards());
    r.put("live_scale_offered_events_per_s", (long) f.offered());
    r.put("live_scale_achieved_events_per_s", f.achieved());
    r.put("live_scale_kept_rate", f.keptRate());
    r.put("live_scale_producer_behind_max_ms", f.behindMs());
    r.put("live_scale_seconds", f.seconds());
    r.put("live_scale_sampled_tables", (long) f.sampledTables());
    r.put("live_scale_sampled_shards", f.sampledShards());
    LiveLatency.Result l = f.latency();
    r.put("live_scale_p50_ms", l.p50());
    r.put("live_scale_p99_ms", l.p99());
    r.put("live_scale_max_ms", l.max());
    r.put("live_scale_timed", l.timed());
    r.put("live_scale_noops", l.noops());
    r.put("live_scale_not_seen", l.censored());
    r.put("live_scale_held_not_seen", l.held());
    r.put("live_scale_drain_seconds", f.drainSeconds());
    r.put(
        "live_scale_fold_delay_first_min_ms",
        f.firstMinute()[1].foldDelayMeanMsSince(f.firstMinute()[0]));
    r.put(
        "live_scale_fold_delay_last_min_ms",
        f.lastMinute()[1].foldDelayMeanMsSince(f.lastMinute()[0]));
    r.put("live_scale_fold_delay_first_min_p99_ms", f.firstMinuteP99Ms());
    r.put("live_scale_fold_delay_last_min_p99_ms", f.lastMinuteP99Ms());
    r.put("live_scale_etcd_requests_per_s", (b.requests() - a.requests()) / s);
    r.put("live_scale_etcd_shard_requests_per_s", (b.shardRequests() - a.shardRequests()) / s);
    r.put("live_scale_etcd_table_requests_per_s", (b.tableRequests() - a.tableRequests()) / s);
    r.put("live_scale_etcd_bytes_per_s", (b.bytes() - a.bytes()) / s);
    r.put("live_scale_etcd_shard_bytes_per_s", (b.shardBytes() - a.shardBytes()) / s);
    r.put("live_scale_etcd_table_bytes_per_s", (b.tableBytes() - a.tableBytes()) / s);
    r.put("live_scale_mirror_keys_per_s", b.keysSince(a) / s);
    r.put("live_scale_mirror_keys_per_txn", b.keysPerTxnSince(a));
    r.put("live_scale_heap_mib", f.heapMib());
    r.put("live_scale_lag_events_at_end", f.lagAtEnd());
    r.put("live_scale_service_cpu_cores", f.serviceCores());
    r.put("live_scale_etcd_cpu_cores", f.etcdCores());
    r.put("live_scale_bench_cpu_cores", f.benchCores());
  }

  /** The rows of (h) in the printed table; none when it did not run. */
  static List<String[]> rows(BenchResults r) {
    List<String[]> rows = new ArrayList<>();
    if (r.get("live_scale_failed") != null) {
      rows.add(new String[] {"(h) live million shards", "FAILED", ""});
      return rows;
    }
    if (r.get("live_scale_p99_ms") == null) {
      return rows;
    }
    boolean censored = r.number("live_scale_not_seen") > 0;
    rows.add(
        new String[] {
          String.format(
              Locale.ROOT,
              "(h) %,d shards live, %,d events/s offered (%,.0f sent/s%s) for %.0f s",
              (long) r.number("live_scale_shards"),
              (long) r.number("live_scale_offered_events_per_s"),
              r.number("live_scale_achieved_events_per_s"),
              Boolean.TRUE.equals(r.get("live_scale_kept_rate")) ? "" : ", NOT KEPT",
              r.number("live_scale_seconds")),
          "",
          ""
        });
    rows.add(
        new String[] {
          String.format(
              Locale.ROOT,
              "    produce -> etcd p50 / p99 / max (%,d events of %,d shards timed%s)",
              (long) r.number("live_scale_timed"),
              (long) r.number("live_scale_sampled_shards"),
              censored
                  ? String.format(
                      Locale.ROOT,
                      "; %,d not seen: at least",
                      (long) r.number("live_scale_not_seen"))
                  : ""),
          r.format(
              "%,.0f / %,.0f / %,.0f ms",
              1, "live_scale_p50_ms", "live_scale_p99_ms", "live_scale_max_ms"),
          "p99 <= 5,000 ms"
        });
    rows.add(
        new String[] {
          "    fold delay, mean (p99) in the first / last minute",
          r.format(
              "%,.0f (%,.0f) / %,.0f (%,.0f) ms",
              1,
              "live_scale_fold_delay_first_min_ms",
              "live_scale_fold_delay_first_min_p99_ms",
              "live_scale_fold_delay_last_min_ms",
              "live_scale_fold_delay_last_min_p99_ms"),
          "not growing"
        });
    rows.add(
        new String[] {
          "    etcd requests/s: all (shard / table)",
          r.format(
              "%,.0f (%,.0f / %,.0f)",
              1,
              "live_scale_etcd_requests_per_s",
              "live_scale_etcd_shard_requests_per_s",
              "live_scale_etcd_table_requests_per_s"),
          ""
        });
    rows.add(
        new String[] {
          "    etcd request KB/s: shard / table records",
          r.format(
              "%,.0f / %,.0f",
              1e-3, "live_scale_etcd_shard_bytes_per_s", "live_scale_etcd_table_bytes_per_s"),
          ""
        });
    rows.add(
        new String[] {
          "    service peak heap (-Xmx" + r.get("scale_service_xmx") + ")",
          r.format("%,.0f MiB", 1, "live_scale_heap_mib"),
          "<= 1,024 MiB"
        });
    return rows;
  }
}
