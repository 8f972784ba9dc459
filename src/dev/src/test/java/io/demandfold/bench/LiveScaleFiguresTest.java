package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LiveScaleFiguresTest {
  private static final long S = 1_000_000_000L;

  private static ServiceCounters at(
      long seconds, double keys, double txns, double requests, double bytes, double delays) {
    // shard and table alike: half of each figure, a quarter of the bytes for tables
    return new ServiceCounters(
        seconds * S,
        keys / 2,
        keys / 2,
        txns / 2,
        txns / 2,
        requests / 2,
        requests / 2,
        requests,
        bytes * 3 / 4,
        bytes / 4,
        bytes,
        delays,
        delays * 0.2,
        250,
        400);
  }

  private static LiveScaleFigures.Figures figures(double achieved, long censored) {
    ServiceCounters start = at(0, 0, 0, 0, 0, 0);
    ServiceCounters minute = at(60, 6000, 100, 300, 6e6, 1000);
    ServiceCounters before = at(240, 24_000, 400, 1200, 24e6, 4000);
    ServiceCounters end = at(300, 30_000, 500, 1500, 30e6, 5000);
    return new LiveScaleFigures.Figures(
        1_000_000,
        16_667,
        achieved,
        300,
        12,
        100,
        10_000,
        new LiveLatency.Result(50_000, 800, 50_000 - censored, 0, censored, 180, 2400, 4100),
        3.5,
        new ServiceCounters[] {start, end},
        new ServiceCounters[] {start, minute},
        new ServiceCounters[] {before, end},
        900,
        1300,
        870,
        2000,
        1.1,
        0.6,
        0.1);
  }

  @Test
  void shouldPutEveryLiveKeyTheIssueAsksFor() {
    BenchResults r = new BenchResults();
    LiveScaleFigures.put(r, figures(16_650, 0));

    for (String key :
        List.of(
            "live_scale_shards",
            "live_scale_offered_events_per_s",
            "live_scale_p50_ms",
            "live_scale_p99_ms",
            "live_scale_max_ms",
            "live_scale_fold_delay_first_min_ms",
            "live_scale_fold_delay_last_min_ms",
            "live_scale_etcd_requests_per_s",
            "live_scale_etcd_shard_requests_per_s",
            "live_scale_etcd_table_requests_per_s",
            "live_scale_etcd_shard_bytes_per_s",
            "live_scale_etcd_table_bytes_per_s",
            "live_scale_heap_mib",
            "live_scale_achieved_events_per_s")) {
      assertThat(r.get(key)).as(key).isNotNull();
    }
    assertThat(r.get("live_scale_shards")).isEqualTo(1_000_000L);
    assertThat(r.get("live_scale_offered_events_per_s")).isEqualTo(16_667L);
    assertThat(r.get("live_scale_kept_rate")).isEqualTo(true);
    assertThat(r.get("live_scale_p99_ms")).isEqualTo(2400.0);
    // over the window's 300 s
    assertThat(r.get("live_scale_etcd_requests_per_s")).isEqualTo(5.0);
    assertThat(r.get("live_scale_etcd_shard_requests_per_s")).isEqualTo(2.5);
    assertThat(r.get("live_scale_etcd_shard_bytes_per_s")).isEqualTo(75_000.0);
    assertThat(r.get("live_scale_etcd_table_bytes_per_s")).isEqualTo(25_000.0);
    assertThat(r.get("live_scale_mirror_keys_per_s")).isEqualTo(100.0);
    assertThat(r.get("live_scale_mirror_keys_per_txn")).isEqualTo(60.0);
    // 0.2 s of delay per event recorded in either minute
    assertThat(r.get("live_scale_fold_delay_first_min_ms")).isEqualTo(200.0);
    assertThat(r.get("live_scale_fold_delay_last_min_ms")).isEqualTo(200.0);
    assertThat(r.get("live_scale_fold_delay_last_min_p99_ms")).isEqualTo(1300.0);
  }

  @Test
  void shouldPrintTheRowsAndSayWhenTheProducerDidNotKeepTheRateOrEventsWereNotSeen()
      throws Exception {
    BenchResults kept = new BenchResults();
    kept.put("scale_service_xmx", "1g");
    LiveScaleFigures.put(kept, figures(16_650, 0));
    StringWriter s = new StringWriter();
    kept.print(new PrintWriter(s));
    assertThat(s.toString())
        .contains("(h) 1,000,000 shards live, 16,667 events/s offered (16,650 sent/s) for 300 s")
        .contains("produce -> etcd p50 / p99 / max (50,000 events of 10,000 shards timed)")
        .contains("180 / 2,400 / 4,100 ms")
        .contains("p99 <= 5,000 ms")
        .contains("200 (900) / 200 (1,300) ms")
        .contains("service peak heap (-Xmx1g)")
        .doesNotContain("NOT KEPT");

    BenchResults slow = new BenchResults();
    LiveScaleFigures.put(slow, figures(9_000, 40));
    StringWriter t = new StringWriter();
    slow.print(new PrintWriter(t));
    assertThat(t.toString())
        .contains("(9,000 sent/s, NOT KEPT)")
        .contains("timed; 40 not seen: at least)");
  }

  @Test
  void shouldLeaveTheRowsOutWhenHDidNotRunAndSayWhenItFailed(@TempDir Path dir) throws Exception {
    BenchResults r = new BenchResults();
    assertThat(LiveScaleFigures.rows(r)).isEmpty();
    r.put("live_scale_failed", "java.lang.IllegalStateException: the service exited");
    assertThat(LiveScaleFigures.rows(r)).hasSize(1);
    assertThat(LiveScaleFigures.rows(r).get(0)[1]).isEqualTo("FAILED");
    Path f = dir.resolve("r.json");
    r.writeJson(f);
    assertThat(Files.readString(f)).contains("\"live_scale_failed\": \"java.lang");
  }

  @Test
  void shouldLeaveHOutWithGAndSaySo() {
    StringWriter s = new StringWriter();
    PrintWriter out = new PrintWriter(s);
    Set<String> skip = new TreeSet<>(Set.of("b", "g"));

    assertThat(Bench.leftOut(skip, out)).containsExactly("b", "g", "h");
    assertThat(s.toString()).contains("(h) runs on the fleet (g) folded: left out with (g)");
    assertThat(skip).as("the caller's set").containsExactly("b", "g");

    StringWriter quiet = new StringWriter();
    assertThat(Bench.leftOut(Set.of("b", "c"), new PrintWriter(quiet)))
        .containsExactlyInAnyOrder("b", "c");
    assertThat(Bench.leftOut(Set.of("g", "h"), new PrintWriter(quiet)))
        .containsExactlyInAnyOrder("g", "h");
    assertThat(quiet.toString()).isEmpty();
  }

  @Test
  void shouldOfferAnEventAShardAMinuteAndSampleAHundredTables() {
    assertThat(ScaleSettings.full().liveRate()).isEqualTo(16_667);
    assertThat(ScaleSettings.quick().liveRate()).isEqualTo(333);
    assertThat(ScaleSettings.full().live()).isEqualTo(Duration.ofMinutes(5));
    assertThat(ScaleSettings.quick().liveDrain()).isEqualTo(Duration.ofMinutes(2));
    assertThat(ScaleSettings.full().liveDrain()).isEqualTo(Duration.ofMinutes(10));
    assertThat(ScaleSettings.full().liveWarmUp()).isEqualTo(Duration.ofSeconds(30));
    assertThat(ScaleSettings.quick().liveWarmUp()).isEqualTo(Duration.ofSeconds(10));

    List<String> many = new java.util.ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      many.add("t" + i);
    }
    List<String> sample = LiveScaleRun.sample(many, 100);
    assertThat(sample).hasSize(100).startsWith("t0", "t100").endsWith("t9900");
    assertThat(LiveScaleRun.sample(List.of("a", "b", "c"), 100)).containsExactly("a", "b", "c");
    assertThat(LiveScaleRun.sample(many.subList(0, 250), 100)).hasSize(100).startsWith("t0", "t2");
  }

  @Test
  void shouldTakeTheMinutesFromTheReadingsNearestTheirEnds() {
    List<ServiceCounters> scrapes =
        List.of(
            at(0, 0, 0, 0, 0, 0),
            at(10, 1, 1, 1, 1, 1),
            at(61, 2, 2, 2, 2, 2),
            at(70, 3, 3, 3, 3, 3));
    assertThat(LiveScaleRun.nearest(scrapes, 60 * S).nanos()).isEqualTo(61 * S);
    assertThat(LiveScaleRun.nearest(scrapes, 0).nanos()).isZero();

    List<ServiceCounters> p99s =
        List.of(
            new ServiceCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9999, 0),
            new ServiceCounters(30 * S, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 700, 0),
            new ServiceCounters(62 * S, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 900, 0),
            new ServiceCounters(90 * S, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5000, 0));
    // after the start (not the reading at it), up to the minute's end and its slack
    assertThat(LiveScaleRun.p99(p99s, 0, 60 * S)).isEqualTo(900);
    assertThat(LiveScaleRun.p99(p99s, 100 * S, 160 * S)).isNaN();
  }
}
