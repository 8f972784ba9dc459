package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.mirror.EtcdMirror;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How often each measure's mirrors saw etcd lose writes: under its key, summed under {@code
 * etcd_rewinds}, in the table and the JSON, and counted in a child's log.
 */
class EtcdRewindsTest {
  @Test
  void shouldPutEachMeasureUnderItsKeyAndTheirSumUnderEtcdRewinds(@TempDir Path dir)
      throws Exception {
    BenchResults r = new BenchResults();
    StringWriter said = new StringWriter();
    Bench.rewinds(r, new PrintWriter(said), "(b)", "pipeline_etcd_rewinds", 0);
    Bench.rewinds(r, new PrintWriter(said), "(d)", "latency_etcd_rewinds", 2);
    EtcdRewinds.put(r, "scaleout_etcd_rewinds_standby1", 1);
    EtcdRewinds.put(r, "scale_etcd_rewinds", 0);

    assertThat(r.get("pipeline_etcd_rewinds")).isEqualTo(0L);
    assertThat(r.get("latency_etcd_rewinds")).isEqualTo(2L);
    assertThat(r.get("etcd_rewinds")).isEqualTo(3L);
    assertThat(said.toString())
        .contains(
            "bench: (b) etcd lost writes, as the mirror saw them"
                + " (demandfold_mirror_etcd_rewound_total): 0\n")
        .contains("bench: (d) etcd lost writes, as the mirror saw them")
        .contains(": 2 (each one wrote every record of the instance's tasks again)");

    StringWriter table = new StringWriter();
    r.print(new PrintWriter(table));
    assertThat(table.toString())
        .containsPattern(
            "etcd lost writes, as the mirror saw them \\(etcd_rewinds\\): b 0, d 2, f standby 1 1,"
                + " g 0 +3 +0 \\(a healthy etcd\\)");

    Path json = dir.resolve("r.json");
    r.writeJson(json);
    assertThat(Files.readString(json))
        .contains("\"pipeline_etcd_rewinds\": 0,")
        .contains("\"etcd_rewinds\": 3,")
        .contains("\"scale_etcd_rewinds\": 0\n");
  }

  @Test
  void shouldPrintNoRowWhenNoMeasureWasCounted() {
    assertThat(EtcdRewinds.rows(new BenchResults())).isEmpty();
  }

  @Test
  void shouldCountTheWarningLinesOfChildLogsAndNoneOfALogNotWritten(@TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("service.log");
    Files.writeString(
        log,
        "12:00:01 INFO  streams REBALANCING -> RUNNING\n"
            + "12:00:02 WARN  CasWriter - "
            + EtcdMirror.LOST_WRITES_WARNING
            + " it answered as cluster 1 at revision 4, after cluster 1 at revision 9\n"
            + "12:00:03 INFO  etcd lost nothing here\n"
            + "12:00:04 WARN  CasWriter - "
            + EtcdMirror.LOST_WRITES_WARNING
            + " it answered as cluster 2 at revision 5, after cluster 1 at revision 9\n");

    assertThat(EtcdRewinds.inLogs(log, dir.resolve("never-started.log"))).isEqualTo(2);
  }
}
