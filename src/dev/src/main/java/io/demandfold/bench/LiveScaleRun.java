package io.demandfold.bench;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.local.EtcdServer;
import io.demandfold.local.ServiceProcess;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * (h) A million shards live: after (g), a new {@code demandfold run} child on (g)'s state and etcd
 * (etcd equal to the fold), while the same fleet ({@link FleetModel}, continued from (g)'s events)
 * offers {@link ScaleSettings#liveRate} events a second of its realistic mix (each shard an event
 * about once a minute: writers flush, executors merge behind, scans) for {@link
 * ScaleSettings#live}, after a warm-up at the same rate ({@link ScaleSettings#liveWarmUp}, not
 * counted). Measured: produce to etcd of the events of a sample of tables ({@link LiveLatency}, a
 * watch per sampled table), the service's fold delay in the first and the last minute and its etcd
 * requests and bytes by record kind ({@link ServiceCounters}, read every 10 s), its peak heap (its
 * GC log) and the CPU of the service, etcd and the bench.
 */
final class LiveScaleRun {
  /** Tables whose shards are timed (every k-th of the fleet's, all of a smaller fleet). */
  static final int SAMPLED_TABLES = 100;

  private static final Duration SCRAPE = Duration.ofSeconds(10);
  private static final Duration PATIENCE = Duration.ofMinutes(10);

  private LiveScaleRun() {}

  /** Every k-th of {@code targets}, {@code n} of them (all when there are no more). */
  static List<String> sample(List<String> targets, int n) {
    int k = Math.max(1, targets.size() / n);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < targets.size() && out.size() < n; i += k) {
      out.add(targets.get(i));
    }
    return out;
  }

  /**
   * @param clock the synthetic clock's next millisecond (the events preloaded so far)
   * @param expected the fold (g) reached, by etcd key: the sampled shards' records come from it
   */
  static void run(
      ScaleSettings g,
      FleetModel model,
      long clock,
      SortedMap<String, byte[]> expected,
      Map<String, String> settings,
      Path dir,
      EtcdServer etcd,
      Client client,
      Admin admin,
      String bootstrap,
      BenchResults r,
      PrintWriter out)
      throws Exception {
    int rate = g.liveRate();
    long total = rate * g.live().toSeconds();
    EtcdLayout layout = new EtcdLayout(ScaleRun.PREFIX);
    List<String> tables = sample(model.targets(), SAMPLED_TABLES);
    Set<String> sampled = new HashSet<>(tables);
    Map<String, ShardRecord> initial = new HashMap<>();
    long sampledShards = (long) tables.size() * g.shardsPerTarget();
    for (String t : tables) {
      String from = layout.shardRecordsPrefix() + Keys.hex(t) + "/";
      for (var e : expected.subMap(from, from + Character.MAX_VALUE).entrySet()) {
        initial.put(
            e.getKey().substring(layout.shardRecordsPrefix().length()),
            JsonCodec.decodeRecord(e.getValue()));
      }
    }
    LiveLatency latency = new LiveLatency(initial);
    say(
        out,
        "(h) %,d shards live: %,d events/s of the realistic mix (each shard an event about every"
            + " %d s) for %d s, a new service child on (g)'s state and etcd; produce -> etcd timed"
            + " for the %,d shards of %d tables, an etcd watch each",
        g.shards(),
        rate,
        ScaleSettings.EVENT_EVERY.toSeconds(),
        g.live().toSeconds(),
        sampledShards,
        tables.size());
    Path gcLog = dir.resolve("service-live-gc.log");
    Path log = dir.resolve("service-live.log");
    List<Watch.Watcher> watchers = new ArrayList<>();
    ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor();
    long started = System.nanoTime();
    try (ServiceProcess p =
        ServiceProcess.start(
            "demandfold run (h)",
            g.serviceHeap(),
            List.of(JvmProbe.gcLogOption(gcLog)),
            settings,
            log)) {
      ServiceHttp http = new ServiceHttp(Integer.parseInt(settings.get("http.port")));
      http.awaitReady(p, PATIENCE);
      long settle = System.nanoTime() + PATIENCE.toNanos();
      while (http.dirtyKeys() > 0) {
        ScaleRun.alive(p, settle, "(h)'s service to settle");
        Thread.sleep(200);
      }
      say(
          out,
          "(h) service ready, nothing waiting for etcd, %.1f s after its start; %d s of warm-up at"
              + " the same rate, not counted",
          (System.nanoTime() - started) / 1e9,
          g.liveWarmUp().toSeconds());
      // from the revision etcd is at now: a watch set up after the first events still sees them
      long revision =
          client
              .getKVClient()
              .get(ByteSequence.from(layout.prefix() + "/", StandardCharsets.UTF_8))
              .get(1, TimeUnit.MINUTES)
              .getHeader()
              .getRevision();
      for (String t : tables) {
        watchers.add(watch(client, layout, t, revision + 1, latency));
      }
      List<Reading> readings = new CopyOnWriteArrayList<>();
      AtomicReference<Exception> scrapeFailure = new AtomicReference<>();
      Runnable read =
          () -> {
            try {
              ServiceCounters c = http.counters();
              readings.add(new Reading(c, cpu(p.pid(), etcd.pid())));
            } catch (Exception e) {
              scrapeFailure.compareAndSet(null, e);
            }
          };
      long t0 = System.nanoTime();
      long warm = g.liveWarmUp().toNanos();
      // the first reading as the warm-up ends, then every 10 s, on a thread of its own
      scraper.scheduleAtFixedRate(read, warm, SCRAPE.toNanos(), TimeUnit.NANOSECONDS);
      long warmEvents = rate * g.liveWarmUp().toSeconds();
      Offered o =
          offer(
              model, clock, rate, warmEvents, warmEvents + total, sampled, latency, bootstrap, out);
      scraper.shutdown();
      scraper.awaitTermination(1, TimeUnit.MINUTES);
      read.run();
      if (readings.size() < 2 || readings.get(0).counters().nanos() < t0 + warm) {
        throw new IllegalStateException(
            "(h) could not read the service's /metrics as the offering began and ended",
            scrapeFailure.get());
      }
      long lag = ScaleOutRun.lag(admin, ScaleRun.APP, ScaleRun.TOPIC);
      long drainDeadline = System.nanoTime() + g.liveDrain().toNanos();
      while (!latency.drained() && System.nanoTime() < drainDeadline && p.isAlive()) {
        Thread.sleep(200);
      }
      long drainEnd = System.nanoTime();
      watchers.forEach(Watch.Watcher::close);
      LiveLatency.Result lat =
          latency.result(key -> LatencyRun.current(client, layout.shardKey(key)), drainEnd);
      if (scrapeFailure.get() != null) {
        say(out, "(h) some reads of the service's /metrics failed: %s", scrapeFailure.get());
      }
      List<ServiceCounters> scrapes = readings.stream().map(Reading::counters).toList();
      ServiceCounters start = scrapes.get(0);
      ServiceCounters end = scrapes.get(scrapes.size() - 1);
      long[] cpu0 = readings.get(0).cpu();
      long[] cpu1 = readings.get(readings.size() - 1).cpu();
      double window = end.secondsSince(start);
      double seconds = (o.end() - o.measuredFrom()) / 1e9;
      long minute = TimeUnit.MINUTES.toNanos(1);
      LiveScaleFigures.Figures f =
          new LiveScaleFigures.Figures(
              g.shards(),
              rate,
              total / seconds,
              seconds,
              o.behindMs(),
              tables.size(),
              sampledShards,
              lat,
              (drainEnd - o.end()) / 1e9,
              new ServiceCounters[] {start, end},
              new ServiceCounters[] {start, nearest(scrapes, start.nanos() + minute)},
              new ServiceCounters[] {nearest(scrapes, end.nanos() - minute), end},
              p99(scrapes, start.nanos(), start.nanos() + minute),
              p99(scrapes, end.nanos() - minute, end.nanos()),
              JvmProbe.peakHeapMib(gcLog),
              lag,
              (cpu1[0] - cpu0[0]) / 1e9 / window,
              (cpu1[1] - cpu0[1]) / 1e9 / window,
              (cpu1[2] - cpu0[2]) / 1e9 / window);
      LiveScaleFigures.put(r, f);
      report(r, out, f);
    } finally {
      scraper.shutdownNow();
      watchers.forEach(Watch.Watcher::close);
    }
    Bench.rewinds(r, out, "(h)", "live_scale_etcd_rewinds", EtcdRewinds.inLogs(log));
  }

  /** A reading of the service's counters with the CPU used so far ({@link #cpu}). */
  private record Reading(ServiceCounters counters, long[] cpu) {}

  /**
   * What the producer did: when the counted part of the offering began and when its last event was
   * flushed, and how far it fell behind its schedule at most in that part.
   */
  private record Offered(long measuredFrom, long end, double behindMs) {}

  /**
   * Sends {@code total} events at {@code rate}, the sampled ones from the {@code warm}-th on timed
   * (the earlier ones are folded into the sample's expectations, not timed). When it falls behind
   * its schedule it sends at once until it is on time again.
   */
  private static Offered offer(
      FleetModel model,
      long clock,
      int rate,
      long warm,
      long total,
      Set<String> sampled,
      LiveLatency latency,
      String bootstrap,
      PrintWriter out) {
    AtomicReference<Exception> failure = new AtomicReference<>();
    long behind = 0;
    long perMinute = rate * 60L;
    long measuredFrom = 0;
    try (KafkaProducer<byte[], byte[]> producer = EventLog.producer(bootstrap, 5)) {
      long t0 = System.nanoTime();
      for (long i = 0; i < total; i++) {
        long due = t0 + (long) (i * 1e9 / rate);
        long now = System.nanoTime();
        if (due > now) {
          LockSupport.parkNanos(due - now);
        } else if (i >= warm) {
          behind = Math.max(behind, now - due);
        }
        if (i == warm) {
          measuredFrom = System.nanoTime();
        }
        DemandEvent e = model.next(EventLog.START_MS + clock + i);
        if (sampled.contains(e.target())) {
          latency.sent(e.key(), e.record(), System.nanoTime(), i >= warm);
        }
        producer.send(
            EventLog.record(ScaleRun.TOPIC, e, clock + i),
            (m, x) -> {
              if (x != null) {
                failure.compareAndSet(null, x);
              }
            });
        if (i >= warm && (i + 1 - warm) % perMinute == 0) {
          say(
              out,
              "(h) minute %d sent: %,.0f events/s so far, at most %.0f ms behind schedule",
              (i + 1 - warm) / perMinute,
              (i + 1 - warm) / ((System.nanoTime() - measuredFrom) / 1e9),
              behind / 1e6);
        }
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("producing (h)'s events failed", failure.get());
    }
    return new Offered(measuredFrom, System.nanoTime(), behind / 1e6);
  }

  /**
   * A watch of the shard records of {@code target} from {@code revision} on, handing each value to
   * {@code latency}.
   */
  private static Watch.Watcher watch(
      Client client, EtcdLayout layout, String target, long revision, LiveLatency latency) {
    String shards = layout.shardRecordsPrefix();
    return client
        .getWatchClient()
        .watch(
            ByteSequence.from(shards + Keys.hex(target) + "/", StandardCharsets.UTF_8),
            WatchOption.builder().isPrefix(true).withRevision(revision).build(),
            ShardPuts.listener(shards, key -> true, latency::heard));
  }

  /** The scrape read nearest to {@code nanos}. */
  static ServiceCounters nearest(List<ServiceCounters> scrapes, long nanos) {
    ServiceCounters best = scrapes.get(0);
    for (ServiceCounters c : scrapes) {
      if (Math.abs(c.nanos() - nanos) < Math.abs(best.nanos() - nanos)) {
        best = c;
      }
    }
    return best;
  }

  /**
   * The largest fold delay p99 (of its last 30 s) the service published in the scrapes read after
   * {@code from} and up to {@code to} (a little past: the scrapes' own spacing); NaN if none.
   */
  static double p99(List<ServiceCounters> scrapes, long from, long to) {
    double max = Double.NaN;
    long slack = SCRAPE.toNanos() / 2;
    for (ServiceCounters c : scrapes) {
      if (c.nanos() > from && c.nanos() <= to + slack && !Double.isNaN(c.foldDelayP99Ms())) {
        max = Double.isNaN(max) ? c.foldDelayP99Ms() : Math.max(max, c.foldDelayP99Ms());
      }
    }
    return max;
  }

  /** CPU time so far of the service, etcd and this process, in nanoseconds. */
  private static long[] cpu(long service, long etcd) {
    return new long[] {
      ProcessCpu.nanos(service),
      ProcessCpu.nanos(etcd),
      ProcessCpu.nanos(ProcessHandle.current().pid())
    };
  }

  private static void report(BenchResults r, PrintWriter out, LiveScaleFigures.Figures f) {
    LiveLatency.Result l = f.latency();
    if (!f.keptRate()) {
      say(
          out,
          "(h) THE PRODUCER DID NOT KEEP THE OFFERED RATE: %,.0f of %,d events/s sent (at most %.0f"
              + " ms behind its schedule); the figures below are of the rate it reached",
          f.achieved(),
          f.offered(),
          f.behindMs());
    }
    say(
        out,
        "(h) offered %,d events/s for %.0f s, sent %,.0f events/s (at most %.0f ms behind"
            + " schedule); produce -> etcd p50 %.0f ms, p99 %.0f ms, max %.0f ms over %,d timed"
            + " events of %,d sampled shards (%,d changed nothing when sent; %,d not in etcd when"
            + " the wait ended %.0f s after the last was sent, counted at that wait: %s; %,d held"
            + " by etcd without a watched write showing them)",
        f.offered(),
        f.seconds(),
        f.achieved(),
        f.behindMs(),
        l.p50(),
        l.p99(),
        l.max(),
        l.timed(),
        f.sampledShards(),
        l.noops(),
        l.censored(),
        f.drainSeconds(),
        l.censored() == 0 ? "none" : "the percentiles are lower bounds",
        l.held());
    say(
        out,
        "(h) fold delay mean (p99) in the first minute %.0f (%.0f) ms, in the last %.0f (%.0f) ms;"
            + " events not committed when the offering ended %,d; etcd %,.0f requests/s (shard"
            + " %,.0f, table %,.0f), %,.0f KB/s (shard %,.0f, table %,.0f); keys written %,.0f/s,"
            + " %.1f a transaction; service peak heap %.0f MiB; CPU cores: service %.2f, etcd %.2f,"
            + " bench %.2f",
        r.number("live_scale_fold_delay_first_min_ms"),
        r.number("live_scale_fold_delay_first_min_p99_ms"),
        r.number("live_scale_fold_delay_last_min_ms"),
        r.number("live_scale_fold_delay_last_min_p99_ms"),
        f.lagAtEnd(),
        r.number("live_scale_etcd_requests_per_s"),
        r.number("live_scale_etcd_shard_requests_per_s"),
        r.number("live_scale_etcd_table_requests_per_s"),
        r.number("live_scale_etcd_bytes_per_s") / 1e3,
        r.number("live_scale_etcd_shard_bytes_per_s") / 1e3,
        r.number("live_scale_etcd_table_bytes_per_s") / 1e3,
        r.number("live_scale_mirror_keys_per_s"),
        r.number("live_scale_mirror_keys_per_txn"),
        f.heapMib(),
        f.serviceCores(),
        f.etcdCores(),
        f.benchCores());
  }

  private static void say(PrintWriter out, String format, Object... args) {
    out.printf("bench: " + format + "%n", args);
    out.flush();
  }
}
