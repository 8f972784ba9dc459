package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencySweepTest {
  private static LatencySweep.Step step(String label, int offered, double p99) {
    LatencyRun.Result r =
        new LatencyRun.Result(
            offered, 100, 3, 0, p99 / 3, p99, p99 * 2, p99 / 2, p99, "", 20, null);
    return new LatencySweep.Step(
        label,
        offered,
        r,
        20,
        50,
        1_000_000,
        new LatencySweep.Inside(3, 12, 40, 4, 80, 200, 5, 20, 6, 30, 9, 40, "poll 0.5", 2, 30, 45));
  }

  @Test
  void shouldOfferTheFirstRateThenFractionsOfTheFoldRate() {
    assertThat(LatencySweep.rates(5000, 100_000))
        .containsExactly(5000, 25_000, 50_000, 75_000, 90_000);
  }

  @Test
  void shouldFindTheWorstRiseOfTheP99FromOneStepToTheNext() {
    List<LatencySweep.Step> steps =
        List.of(step("5,000/s", 5000, 80), step("25 %", 25_000, 100), step("50 %", 50_000, 600));
    assertThat(LatencySweep.worstStepRatio(steps)).isEqualTo(6.0);
  }

  @Test
  void shouldWriteTheSweepAsAListOfObjectsAndPrintARowPerStep(@TempDir Path dir) throws Exception {
    BenchResults r = new BenchResults();
    r.put(
        "latency_sweep",
        List.of(step("5,000/s", 5000, 80).figures(), step("90 %", 90_000, 2500).figures()));
    r.put("latency_sweep_worst_step_ratio", 31.25);
    Path json = dir.resolve("r.json");
    r.writeJson(json);
    String text = Files.readString(json);
    assertThat(text)
        .contains(
            "\"latency_sweep\": [{\"step\": \"5,000/s\", \"offered_events_per_s\": 5000, \"p50_ms\":"
                + " 26.6667, \"p99_ms\": 80.0000, \"max_ms\": 160.0000, \"etcd_requests_per_s\":"
                + " 50.0000, \"etcd_bytes_per_s\": 1000000.0000, \"measured\": 100, \"lost\": 0,"
                + " \"mirror_wait_mean_ms\": 3.0000,")
        .contains("}, {\"step\": \"90 %\"");
    new com.fasterxml.jackson.databind.ObjectMapper().readTree(text); // valid JSON
    StringWriter out = new StringWriter();
    r.print(new PrintWriter(out));
    assertThat(out.toString())
        .contains("90 %, 90,000 events/s")
        .contains("833 / 2,500 / 5,000 ms; 50 req/s, 1,000 KB/s")
        .contains("p99 <= 3,000 ms")
        .contains("31.25");
  }
}
