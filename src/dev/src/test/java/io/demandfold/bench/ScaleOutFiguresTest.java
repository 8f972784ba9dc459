package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaleOutFiguresTest {
  private static ScaleOutRun.Result result(int standbys, double firstMs, double allMs) {
    return new ScaleOutRun.Result(
        standbys,
        List.of(1, 4, 7, 10),
        60_000,
        1000,
        12.5,
        120,
        230,
        6400,
        firstMs,
        allMs,
        900,
        List.of(
            new Restores.Restore("shard-records", 1, 4000, 2100),
            new Restores.Restore("shard-outbox", 1, 10, 40)),
        1500,
        true,
        2_000_000,
        new StoreSizes.Etcd(1000, 40_000, 1_300_000, 20, 400, 160_000),
        1_500_000,
        1100,
        "shard-records: 1,000 keys, 1,450,000 B, table-demand: 20 keys, 50,000 B",
        9_000_000,
        standbys);
  }

  private static BenchResults results(ScaleOutRun.Result... runs) {
    BenchResults r = new BenchResults();
    r.put("scaleout_instances", 3L);
    r.put("scaleout_partitions", 12L);
    r.put("scaleout_offered_events_per_s", 2000L);
    r.put("scaleout_session_timeout_ms", 6000L);
    for (ScaleOutRun.Result x : runs) {
      ScaleOutFigures.put(r, x);
    }
    return r;
  }

  @Test
  void shouldPutEveryFigureUnderItsStandbySetting() {
    BenchResults r = results(result(0, 7200, 8100), result(1, 6500, 6900));

    assertThat(r.get("scaleout_resume_first_ms_standby0")).isEqualTo(7200.0);
    assertThat(r.get("scaleout_resume_all_ms_standby0")).isEqualTo(8100.0);
    assertThat(r.get("scaleout_resume_first_ms_standby1")).isEqualTo(6500.0);
    assertThat(r.get("scaleout_takeover_ms_standby1")).isEqualTo(6400.0);
    assertThat(r.get("scaleout_restore_ms_standby0")).isEqualTo(2100.0);
    assertThat(r.get("scaleout_restored_records_standby0")).isEqualTo(4010L);
    assertThat(r.get("scaleout_killed_partitions_standby0")).isEqualTo("[1, 4, 7, 10]");
    assertThat(r.get("scaleout_etcd_equal_standby0")).isEqualTo(true);
    // per shard: over the 1,000 shards folded
    assertThat(r.get("scaleout_state_dir_bytes_per_shard_standby0")).isEqualTo(2000.0);
    assertThat(r.get("scaleout_changelog_live_bytes_per_shard_standby0")).isEqualTo(1500.0);
    assertThat(r.get("scaleout_changelog_held_bytes_per_shard_standby0")).isEqualTo(9000.0);
    assertThat(r.get("scaleout_etcd_keys_per_shard_standby0")).isEqualTo(1.02);
    assertThat(r.get("scaleout_etcd_bytes_per_shard_standby0")).isEqualTo(1500.4);
    assertThat(r.get("scaleout_etcd_shard_value_bytes_per_shard_standby0")).isEqualTo(1300.0);
    assertThat(r.get("scaleout_etcd_table_bytes_per_shard_standby0")).isEqualTo(160.4);
    // each run's etcd rewinds (its standby setting here), and their sum
    assertThat(r.get("scaleout_etcd_rewinds_standby0")).isEqualTo(0L);
    assertThat(r.get("scaleout_etcd_rewinds_standby1")).isEqualTo(1L);
    assertThat(r.get("etcd_rewinds")).isEqualTo(1L);
  }

  @Test
  void shouldPrintARowPairPerStandbySettingAndNoRowsOfMeasuresNotRun() {
    BenchResults r = results(result(0, 7200, 8100), result(1, 6500, Double.NaN));
    StringWriter s = new StringWriter();
    r.print(new PrintWriter(s));

    assertThat(s.toString())
        .contains("(f) scale-out: 3 instances, 12 partitions, 2,000 events/s, SIGKILL of one")
        .containsPattern(
            "standby 0: handed on / restore / first write / caught up +6\\.4 / 2\\.1 / 7\\.2 /"
                + " 8\\.1 s +session timeout 6\\.0 s")
        .containsPattern("standby 1: handed on .* 6\\.4 / 2\\.1 / 6\\.5 / - s")
        .containsPattern(
            "standby 0: per shard RocksDB / changelog / etcd; etcd = fold +2,000 /"
                + " 1,500 / 1,500 B; yes")
        // (a) to (e) did not run: their rows are left out
        .doesNotContain("(a) limit")
        .doesNotContain("(e) heap");
  }

  @Test
  void shouldLeaveTheRowsOutWhenTheMeasureDidNotRun() {
    assertThat(ScaleOutFigures.rows(new BenchResults())).isEmpty();
  }

  @Test
  void shouldWriteAFigureNotMeasuredAsNullInJson(@TempDir Path dir) throws Exception {
    BenchResults r = results(result(1, Double.NaN, 6900));
    Path f = dir.resolve("r.json");
    r.writeJson(f);

    assertThat(Files.readString(f))
        .contains("\"scaleout_resume_first_ms_standby1\": null,")
        .contains("\"scaleout_resume_all_ms_standby1\": 6900.0000,");
  }
}
