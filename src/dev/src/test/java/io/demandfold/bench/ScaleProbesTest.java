package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ScaleProbesTest {
  @Test
  void peakHeapIsTheLargestOccupancyBeforeACollectionInAnyUnit() {
    String log =
        "[0.512s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 25M->3M(256M) 4.1ms\n"
            + "[1.204s][info][gc] GC(1) Pause Young (Concurrent Start) 1G->700M(1024M) 9.0ms\n"
            + "[1.900s][info][gc] GC(2) Pause Remark 800M->790M(1024M) 2.0ms\n"
            + "[2.100s][info][gc] GC(3) Pause Young (Normal) 512000K->2048K(1048576K) 3.0ms\n";
    assertThat(JvmProbe.peakHeapMib(log)).isEqualTo(1024.0);
    assertThat(JvmProbe.peakHeapMib("[0.1s][info][gc] Using G1\n")).isZero();
  }

  @Test
  void dirtyKeysSumsEveryKindAndRefusesAnExpositionWithoutTheGauge() {
    String metrics =
        "# TYPE demandfold_mirror_dirty_keys gauge\n"
            + "demandfold_mirror_dirty_keys{instance=\"a\",kind=\"shard\"} 12.0\n"
            + "demandfold_mirror_dirty_keys{instance=\"a\",kind=\"table\"} 3.0\n"
            + "demandfold_mirror_dirty_keys_other 99.0\n";
    assertThat(ServiceHttp.dirtyKeys(metrics)).isEqualTo(15);
    assertThatThrownBy(() -> ServiceHttp.dirtyKeys("jvm_threads 3.0\n"))
        .hasMessageContaining("demandfold_mirror_dirty_keys");
  }

  @Test
  void scaleRowsPrintOnlyWhenTheMeasureRan() {
    BenchResults r = new BenchResults();
    assertThat(ScaleFigures.rows(r)).isEmpty();
    r.put("pipeline_events_per_s", 300_000.0);
    r.put("scale_shards", 1_000_000L);
    r.put("scale_events", 3_000_000L);
    r.put("scale_events_per_s", 160_000.0);
    r.put("scale_fold_seconds", 15.0);
    r.put("scale_converge_seconds", 18.75);
    r.put("scale_etcd_value_bytes_per_shard", 480.0);
    r.put("scale_etcd_db_bytes_per_shard", 700.0);
    r.put("scale_etcd_db_bytes", 700_000_000L);
    r.put("scale_changelog_bytes_per_shard", 280.0);
    r.put("scale_service_xmx", "1g");
    r.put("scale_ops_xmx", "512m");
    r.put("scale_heap_mib", 800.0);
    r.put("scale_rss_mib", 1400.0);
    r.put("scale_restore_seconds", 40.0);
    r.put("scale_audit_seconds", 60.0);
    r.put("scale_rebuild_seconds", 70.0);
    r.put("scale_audit_heap_mib", 400.0);
    r.put("scale_rebuild_heap_mib", 450.0);
    StringWriter s = new StringWriter();
    r.print(new PrintWriter(s));
    assertThat(s.toString())
        .contains("(g) 1,000,000 shards, 3,000,000 events, mirror on")
        .contains("160,000 events/s")
        .contains(">= 150,000 (half of (b))")
        .contains("15.0 / 18.8 s")
        .contains("dbSize <= 1 GB (700 MB)")
        .contains("800 / 1,400 MiB")
        .contains("60.0 s / 70.0 s");
    assertThat(s.toString()).doesNotContain("keys per transaction");
    ScaleFigures.putMirror(
        r,
        new ServiceCounters(
            9, 2_850_000, 95_000, 90_000, 5_000, 95_000, 5_100, 100_200, 855e6, 1_880e6, 2_735e6, 0,
            0, 0, 0),
        750);
    assertThat(r.get("scale_mirror_keys_per_s")).isEqualTo(3_926.6666666666665);
    assertThat(r.get("scale_mirror_keys_per_txn")).isEqualTo(31.0);
    assertThat(r.get("scale_etcd_shard_request_bytes")).isEqualTo(855_000_000L);
    assertThat(r.get("scale_etcd_table_request_bytes")).isEqualTo(1_880_000_000L);
    StringWriter mirror = new StringWriter();
    r.print(new PrintWriter(mirror));
    assertThat(mirror.toString())
        .contains("mirror: keys written per second, keys per transaction")
        .contains("3,927, 31.0")
        .contains("855 / 1,880 MB")
        .contains("table <= shard");
    r.put("scale_audit_failed", "audit -Xmx512m exited 1");
    StringWriter failed = new StringWriter();
    r.print(new PrintWriter(failed));
    assertThat(failed.toString()).contains("FAILED / 70.0 s");
  }
}
