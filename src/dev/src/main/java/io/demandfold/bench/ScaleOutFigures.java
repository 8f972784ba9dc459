package io.demandfold.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The figures of (f) in the bench results: every figure of a run under a key ending in {@code
 * _standby<N>}, N its {@code num.standby.replicas}; per-shard sizes divided by the shards folded.
 */
final class ScaleOutFigures {
  private ScaleOutFigures() {}

  /** Puts the figures of {@code x} into {@code r}. */
  static void put(BenchResults r, ScaleOutRun.Result x) {
    String n = "_standby" + x.standbys();
    double shards = Math.max(1, x.shards());
    r.put("scaleout_killed_partitions" + n, x.killedPartitions().toString());
    r.put("scaleout_events" + n, x.events());
    r.put("scaleout_shards" + n, x.shards());
    r.put("scaleout_preload_seconds" + n, x.preloadSeconds());
    r.put("scaleout_takeover_ms" + n, x.takeoverMs());
    r.put("scaleout_restore_ms" + n, (double) Restores.longestMs(x.restores()));
    r.put("scaleout_restored_records" + n, Restores.records(x.restores()));
    r.put("scaleout_restores" + n, Restores.byStore(x.restores()));
    r.put("scaleout_resume_first_ms" + n, x.firstWriteMs());
    r.put("scaleout_resume_all_ms" + n, x.killedCaughtUpMs());
    r.put("scaleout_others_caught_up_ms" + n, x.othersCaughtUpMs());
    r.put("scaleout_pending_shards_at_kill" + n, (long) x.pendingKilledAtKill());
    r.put("scaleout_pending_other_shards_at_kill" + n, (long) x.pendingOthersAtKill());
    r.put("scaleout_converge_ms" + n, x.convergeMs());
    r.put("scaleout_etcd_equal" + n, x.etcdEqual());
    r.put("scaleout_state_dir_bytes" + n, x.stateDirBytes());
    r.put("scaleout_state_dir_bytes_per_shard" + n, x.stateDirBytes() / shards);
    r.put("scaleout_changelog_live_keys" + n, (long) x.changelogLiveKeys());
    r.put("scaleout_changelog_live_bytes_per_shard" + n, x.changelogLiveBytes() / shards);
    r.put("scaleout_changelog_live_by_store" + n, x.changelogLiveByStore());
    r.put("scaleout_changelog_held_bytes" + n, x.changelogHeldBytes());
    r.put("scaleout_changelog_held_bytes_per_shard" + n, x.changelogHeldBytes() / shards);
    EtcdRewinds.put(r, "scaleout_etcd_rewinds" + n, x.etcdRewinds());
    StoreSizes.Etcd e = x.etcd();
    r.put("scaleout_etcd_shard_keys" + n, e.shardKeys());
    r.put("scaleout_etcd_table_keys" + n, e.tableKeys());
    r.put("scaleout_etcd_keys_per_shard" + n, e.keys() / shards);
    r.put("scaleout_etcd_bytes_per_shard" + n, e.bytes() / shards);
    r.put(
        "scaleout_etcd_shard_value_bytes_per_shard" + n,
        e.shardValueBytes() / (double) Math.max(1, e.shardKeys()));
    r.put(
        "scaleout_etcd_table_bytes_per_shard" + n,
        (e.tableKeyBytes() + e.tableValueBytes()) / shards);
  }

  /** The summary rows of (f), one per standby setting measured; none when (f) did not run. */
  static List<String[]> rows(BenchResults r) {
    List<String[]> rows = new ArrayList<>();
    if (r.get("scaleout_instances") == null) {
      return rows;
    }
    rows.add(
        new String[] {
          String.format(
              Locale.ROOT,
              "(f) scale-out: %s instances, %s partitions, %,d events/s, SIGKILL of one",
              r.get("scaleout_instances"),
              r.get("scaleout_partitions"),
              (long) r.number("scaleout_offered_events_per_s")),
          "",
          ""
        });
    for (int n = 0; n < 8; n++) {
      String k = "_standby" + n;
      if (r.get("scaleout_resume_first_ms" + k) == null) {
        continue;
      }
      rows.add(
          new String[] {
            "    standby " + n + ": handed on / restore / first write / caught up",
            String.format(
                Locale.ROOT,
                "%s / %s / %s / %s s",
                s(r.number("scaleout_takeover_ms" + k)),
                s(r.number("scaleout_restore_ms" + k)),
                s(r.number("scaleout_resume_first_ms" + k)),
                s(r.number("scaleout_resume_all_ms" + k))),
            "session timeout " + s(r.number("scaleout_session_timeout_ms")) + " s"
          });
      rows.add(
          new String[] {
            "    standby " + n + ": per shard RocksDB / changelog / etcd; etcd = fold",
            String.format(
                Locale.ROOT,
                "%,.0f / %,.0f / %,.0f B; %s",
                r.number("scaleout_state_dir_bytes_per_shard" + k),
                r.number("scaleout_changelog_live_bytes_per_shard" + k),
                r.number("scaleout_etcd_bytes_per_shard" + k),
                Boolean.TRUE.equals(r.get("scaleout_etcd_equal" + k)) ? "yes" : "no"),
            ""
          });
    }
    return rows;
  }

  private static String s(double ms) {
    return Double.isNaN(ms) ? "-" : String.format(Locale.ROOT, "%.1f", ms / 1000);
  }
}
