package io.demandfold.bench;

import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.RecordKind;
import io.demandfold.sim.FleetModel;
import io.demandfold.stream.PipelineMetrics;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.kafka.streams.KafkaStreams;

/**
 * (d) as a load sweep: produce-to-etcd latency ({@link LatencyRun}) at a fixed first rate, then at
 * fractions of the rate (b) measured, each step after the mirror has settled (no dirty key left),
 * with the etcd requests and bytes the mirror sent per second during the step. The first step (and
 * the warm-up) also times the same events to a {@link io.demandfold.view.DemandView}'s listener
 * ({@link ViewLag}).
 */
final class LatencySweep {
  /**
   * How long the first rate is offered before the sweep, not counted: after (b), a catch-up, the
   * live paths (the hand-off to the mirror, its calls, the emission at its live pace) have not run,
   * and their first seconds carry the JIT compiler's work and the collection of (b)'s garbage.
   */
  static final Duration WARM_UP = Duration.ofSeconds(30);

  /** The fractions of (b)'s rate offered after the first step. */
  static final double[] FRACTIONS = {0.25, 0.5, 0.75, 0.9};

  private LatencySweep() {}

  /**
   * One step.
   *
   * @param label "5,000/s" or "50 %" (of (b))
   * @param seconds how long the step took, offering and waiting for the last events, over which the
   *     rates are taken
   */
  record Step(
      String label,
      int offered,
      LatencyRun.Result latency,
      double seconds,
      double etcdRequestsPerSecond,
      double etcdBytesPerSecond,
      Inside inside) {

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
      m.put("mirror_wait_mean_ms", inside.waitMeanMs());
      m.put("mirror_call_mean_ms", inside.callMeanMs());
      m.put("mirror_calls", inside.calls());
      m.put("mirror_limit_at_end", (long) inside.limit());
      m.put("commit_latency_avg_ms", inside.commitAvgMs());
      m.put("commit_latency_max_ms", inside.commitMaxMs());
      m.put("kafka_p50_ms", inside.kafkaP50Ms());
      m.put("kafka_p99_ms", inside.kafkaP99Ms());
      m.put("fold_delay_p50_ms", inside.foldP50Ms());
      m.put("fold_delay_p99_ms", inside.foldP99Ms());
      m.put("mirror_wait_p99_ms", inside.waitP99Ms());
      m.put("mirror_call_p99_ms", inside.callP99Ms());
      m.put("stream_thread_time", inside.threadTime());
      m.put("gc_pauses", inside.gcPauses());
      m.put("gc_pause_max_ms", inside.gcMaxMs());
      m.put("gc_pause_total_ms", inside.gcTotalMs());
      return m;
    }
  }

  /**
   * Where the time went inside the pipeline during a step: how long changed keys waited for a call
   * of the live mirror and how long its calls took (means over the step), the calls, the mirror's
   * concurrency limit at the end, the stream thread's commit latency (Kafka Streams' average and
   * maximum over its last sample windows), and Kafka's own produce-to-consume latency of the step's
   * events for a plain consumer ({@link KafkaLatency}).
   */
  record Inside(
      double waitMeanMs,
      double callMeanMs,
      long calls,
      int limit,
      double commitAvgMs,
      double commitMaxMs,
      double kafkaP50Ms,
      double kafkaP99Ms,
      double foldP50Ms,
      double foldP99Ms,
      double waitP99Ms,
      double callP99Ms,
      String threadTime,
      long gcPauses,
      long gcMaxMs,
      long gcTotalMs) {}

  /** The running totals {@link Inside} is taken from. */
  private record Totals(long waits, double waitMs, long calls, double callMs) {
    static Totals of(MirrorMetrics m) {
      return new Totals(
          m.keyWait().count(),
          m.keyWait().totalTime(TimeUnit.MILLISECONDS),
          m.callTime().count(),
          m.callTime().totalTime(TimeUnit.MILLISECONDS));
    }

    Inside since(
        Totals before,
        int limit,
        KafkaStreams streams,
        double[] kafka,
        PipelineMetrics p,
        long[] gc) {
      long w = waits - before.waits;
      long c = calls - before.calls;
      return new Inside(
          w == 0 ? Double.NaN : (waitMs - before.waitMs) / w,
          c == 0 ? Double.NaN : (callMs - before.callMs) / c,
          c,
          limit,
          threadMetric(streams, "commit-latency-avg"),
          threadMetric(streams, "commit-latency-max"),
          kafka[0],
          kafka[1],
          percentile(p.foldDelay(), 0.5),
          percentile(p.foldDelay(), 0.99),
          percentile(p.mirror().keyWait(), 0.99),
          percentile(p.mirror().callTime(), 0.99),
          String.format(
              Locale.ROOT,
              "poll %.2f, process %.2f, punctuate %.2f (at most %.0f ms), commit %.2f",
              threadMetric(streams, "poll-ratio"),
              threadMetric(streams, "process-ratio"),
              threadMetric(streams, "punctuate-ratio"),
              threadMetric(streams, "punctuate-latency-max"),
              threadMetric(streams, "commit-ratio")),
          gc[0],
          gc[1],
          gc[2]);
    }
  }

  /** A percentile of a timer's last 30 s, in milliseconds; NaN when it has none. */
  private static double percentile(io.micrometer.core.instrument.Timer t, double p) {
    for (var v : t.takeSnapshot().percentileValues()) {
      if (v.percentile() == p) {
        return v.value(TimeUnit.MILLISECONDS);
      }
    }
    return Double.NaN;
  }

  /** The largest value of a stream-thread metric over the threads, NaN when none. */
  private static double threadMetric(KafkaStreams streams, String name) {
    double out = Double.NaN;
    for (var e : streams.metrics().entrySet()) {
      if (e.getKey().group().equals("stream-thread-metrics") && e.getKey().name().equals(name)) {
        Object v = e.getValue().metricValue();
        if (v instanceof Number n && !Double.isNaN(n.doubleValue())) {
          out = Double.isNaN(out) ? n.doubleValue() : Math.max(out, n.doubleValue());
        }
      }
    }
    return out;
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
      PipelineMetrics metrics,
      KafkaStreams streams,
      IntSupplier limit)
      throws InterruptedException {
    try (KafkaLatency kafka = new KafkaLatency(bootstrap, topic);
        GcPauses gc = new GcPauses()) {
      List<Step> steps = new ArrayList<>();
      long clock = clockFrom;
      MirrorMetrics mirror = metrics.mirror();
      // the fold by shard key, which the steps extend: a hash map, cheap for the harness to keep
      Map<String, ShardRecord> folded = new HashMap<>();
      for (var t : expected.targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          folded.put(Keys.shardKey(t.getKey(), r.shard()), r);
        }
      }
      // the live paths run for the first time after (b), a catch-up that holds its shards and so
      // runs none of them: compiled and warmed up first (10 s left a held (b)'s first 15 s of the
      // step at 1-2.7 s while the JIT compiled them and the emit pacing shrank back)
      settle(metrics, Duration.ofSeconds(60));
      LatencyRun.Result warm =
          LatencyRun.run(
              rates.get(0), WARM_UP, model, clock, folded, bootstrap, topic, etcd, layout, true);
      clock += (long) rates.get(0) * WARM_UP.toSeconds();
      out.printf(
          Locale.ROOT,
          "bench: (d) warm-up, not counted: %,d events/s for %d s: p50 %.0f ms, p99 %.0f ms, max"
              + " %.0f ms%n",
          rates.get(0),
          WARM_UP.toSeconds(),
          warm.p50(),
          warm.p99(),
          warm.max());
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
        Totals totals0 = Totals.of(mirror);
        kafka.takeQuantiles();
        gc.take();
        LatencyRun.Result lat =
            LatencyRun.run(rate, d, model, clock, folded, bootstrap, topic, etcd, layout, i == 0);
        double seconds = lat.seconds();
        clock += (long) rate * d.toSeconds();
        Step s =
            new Step(
                label,
                rate,
                lat,
                seconds,
                (mirror.etcdRequests() - requests0) / seconds,
                (mirror.etcdRequestBytes() - bytes0) / seconds,
                Totals.of(mirror)
                    .since(
                        totals0,
                        limit.getAsInt(),
                        streams,
                        kafka.takeQuantiles(),
                        metrics,
                        gc.take()));
        steps.add(s);
        out.printf(
            Locale.ROOT,
            "bench: (d) %s: %,d events/s for %d s: p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f"
                + " ms over %,d events (%d changed nothing when sent, %d never seen); etcd %,.0f"
                + " requests/s, %,.0f KB/s; inside: keys waited %.1f ms for a call, calls took"
                + " %.1f ms (%,d calls, limit %d at the end), commits %.0f ms on average, %.0f ms at"
                + " most; Kafka alone p50 %.0f ms, p99 %.0f ms; fold delay p50 %.0f ms, p99 %.0f ms;"
                + " mirror wait p99 %.0f ms, call p99 %.0f ms; stream thread's time: %s; %d GC pauses,"
                + " the longest %d ms, %d ms in all; slowest seconds %s%n",
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
            s.inside().waitMeanMs(),
            s.inside().callMeanMs(),
            s.inside().calls(),
            s.inside().limit(),
            s.inside().commitAvgMs(),
            s.inside().commitMaxMs(),
            s.inside().kafkaP50Ms(),
            s.inside().kafkaP99Ms(),
            s.inside().foldP50Ms(),
            s.inside().foldP99Ms(),
            s.inside().waitP99Ms(),
            s.inside().callP99Ms(),
            s.inside().threadTime(),
            s.inside().gcPauses(),
            s.inside().gcMaxMs(),
            s.inside().gcTotalMs(),
            lat.slowestSeconds());
        if (lat.view() != null) {
          ViewLag.Result v = lat.view();
          out.printf(
              Locale.ROOT,
              "bench: (d) %s: produce -> DemandView listener: view lag p50 %.0f ms, p99 %.0f ms, max"
                  + " %.0f ms over %,d events that changed their table's view (%d never heard; %d"
                  + " heard records not read back), beside produce -> etcd p50 %.0f ms, p99 %.0f"
                  + " ms%n",
              label,
              v.p50(),
              v.p99(),
              v.max(),
              v.measured(),
              v.lost(),
              v.unread(),
              lat.p50(),
              lat.p99());
        }
        out.flush();
      }
      return steps;
    }
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
