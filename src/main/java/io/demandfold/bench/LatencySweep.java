package io.demandfold.bench;

import io.demandfold.core.Fold;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.RecordKind;
import io.demandfold.sim.FleetModel;
import io.demandfold.stream.PipelineMetrics;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * (d) as a load sweep: produce-to-etcd latency ({@link LatencyRun}) at a fixed first rate, then at
 * fractions of the rate (b) measured, each step after the mirror has settled (no dirty key left),
 * with the etcd requests and bytes the mirror sent per second during the step.
 */
final class LatencySweep {
  /** The fractions of (b)'s rate offered after the first step. */
  static final double[] FRACTIONS = {0.25, 0.5, 0.75, 0.9};

  private LatencySweep() {}

  /**
   * One step.
   *
   * @param label "5,000/s" or "50 %" (of (b))
   * @param seconds how long the step took, offering and draining, over which the rates are taken
   */
  record Step(
      String label,
      int offered,
      LatencyRun.Result latency,
      double seconds,
      double etcdRequestsPerSecond,
      double etcdBytesPerSecond) {

    /** The step as the JSON object of {@code latency_sweep}. */
    Map<String, Object> figures() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("step", label);
      m.put("offered_events_per_s", (long) offered);
      m.put("p50_ms", latency.p50());
      m.put("p99_ms", latency.p99());
      m.put("max_ms", latency.max());
      m.put("etcd_requests_per_s", etcdRequestsPerSecond);
      m.put("etcd_bytes_per_s", etcdBytesPerSecond);
      m.put("measured", latency.measured());
      m.put("lost", latency.lost());
      return m;
    }
  }

  /** The rates of a sweep: {@code first}, then each of {@link #FRACTIONS} of {@code foldRate}. */
  static List<Integer> rates(int first, double foldRate) {
    List<Integer> out = new ArrayList<>();
    out.add(first);
    for (double f : FRACTIONS) {
      out.add((int) Math.max(1, Math.round(foldRate * f)));
    }
    return out;
  }

  static List<Step> run(
      PrintWriter out,
      List<Integer> rates,
      Duration firstDuration,
      Duration stepDuration,
      FleetModel model,
      long clockFrom,
      Fold expected,
      String bootstrap,
      String topic,
      Client etcd,
      EtcdLayout layout,
      PipelineMetrics metrics)
      throws InterruptedException {
    List<Step> steps = new ArrayList<>();
    long clock = clockFrom;
    MirrorMetrics mirror = metrics.mirror();
    for (int i = 0; i < rates.size(); i++) {
      int rate = rates.get(i);
      Duration d = i == 0 ? firstDuration : stepDuration;
      String label =
          i == 0
              ? String.format(Locale.ROOT, "%,d/s", rate)
              : String.format(Locale.ROOT, "%.0f %%", FRACTIONS[i - 1] * 100);
      settle(metrics, Duration.ofSeconds(60));
      long requests0 = mirror.etcdRequests();
      long bytes0 = mirror.etcdRequestBytes();
      long t0 = System.nanoTime();
      LatencyRun.Result lat =
          LatencyRun.run(rate, d, model, clock, expected, bootstrap, topic, etcd, layout);
      double seconds = (System.nanoTime() - t0) / 1e9;
      clock += (long) rate * d.toSeconds();
      Step s =
          new Step(
              label,
              rate,
              lat,
              seconds,
              (mirror.etcdRequests() - requests0) / seconds,
              (mirror.etcdRequestBytes() - bytes0) / seconds);
      steps.add(s);
      out.printf(
          Locale.ROOT,
          "bench: (d) %s: %,d events/s for %d s: p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f"
              + " ms over %,d events (%d changed nothing when sent, %d never seen); etcd %,.0f"
              + " requests/s, %,.0f KB/s; slowest seconds %s%n",
          label,
          rate,
          d.toSeconds(),
          lat.p50(),
          lat.p90(),
          lat.p99(),
          lat.max(),
          lat.measured(),
          lat.noops(),
          lat.lost(),
          s.etcdRequestsPerSecond(),
          s.etcdBytesPerSecond() / 1e3,
          lat.slowestSeconds());
      out.flush();
    }
    return steps;
  }

  /** Waits until no shard or table key is dirty, so that a step starts from a settled mirror. */
  private static void settle(PipelineMetrics metrics, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (metrics.dirtyKeys(RecordKind.SHARD) + metrics.dirtyKeys(RecordKind.TABLE) > 0
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  /**
   * The largest ratio of one step's p99 to the step before it (the sweep's cliff): the goal is at
   * most 5.
   */
  static double worstStepRatio(List<Step> steps) {
    double worst = 0;
    for (int i = 1; i < steps.size(); i++) {
      worst = Math.max(worst, steps.get(i).latency().p99() / steps.get(i - 1).latency().p99());
    }
    return worst;
  }
}
