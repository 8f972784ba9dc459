package io.demandfold.bench;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.Fold;
import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.ops.EtcdSnapshot;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * One benchmark run: starts a real broker and a real etcd on loopback, preloads the stream and
 * measures (a) to (h) and the join, in that order; see {@link BenchResults#print}.
 */
public final class Bench {
  static final String TOPIC = "bench.events";
  static final int PARTITIONS = 6;
  static final double LATENCY_GOAL_MS = 100;

  private Bench() {}

  /**
   * @param overrides settings of the pipeline under test in (b) and (d), over the defaults
   * @param skip measures left out: {@code b} (the preload with (a), (a2), (b) and (d), which read
   *     it), {@code c}, {@code d}, {@code e}, {@code f}, {@code g} (and with it {@code h}), {@code
   *     h}
   */
  public static BenchResults run(
      BenchSettings s,
      Map<String, String> overrides,
      java.util.Set<String> skip,
      PrintWriter out,
      Path work)
      throws Exception {
    BenchResults r = new BenchResults();
    long started = System.nanoTime();
    skip = leftOut(skip, out);
    try (EtcdServer etcd = EtcdServer.builder().dataDir(work.resolve("etcd")).build().start();
        KafkaBroker broker =
            KafkaBroker.builder().dataDir(work.resolve("kafka")).heap("1g").build().start();
        Client client = EtcdSettings.of(etcd.endpoint()).connect()) {
      if (!skip.contains("b")) {
        pipeline(s, overrides, skip, r, out, work, broker, etcd, client);
      }
      if (!skip.contains("c")) {
        reference(s, r, out, work);
      }
      if (!skip.contains("e")) {
        say(
            out,
            "(e) memory: a service process with -Xmx%s folds %,d shards",
            s.memoryHeap(),
            s.memoryShards());
        MemoryRun.Result memory =
            MemoryRun.run(s, broker.bootstrapServers(), etcd.endpoint(), client, work);
        r.put("memory_shards", (long) s.memoryShards());
        r.put("memory_xmx", s.memoryHeap());
        r.put("heap_mib_100k_shards", memory.heapMib());
        rewinds(r, out, "(e)", "memory_etcd_rewinds", memory.etcdRewinds());
      }
      if (!skip.contains("f")) {
        scaleOut(s, r, out, work, broker.bootstrapServers());
      }
      if (!skip.contains("g")) {
        ScaleRun.run(s, r, out, work, broker.bootstrapServers(), !skip.contains("h"));
      }
      double join = JoinRate.eventsPerSecond();
      r.put("join_events_per_s", join);
      r.put("cores", (long) Runtime.getRuntime().availableProcessors());
    }
    r.put("bench_seconds", secs(started));
    say(out, "every measure in %.1f min", secs(started) / 60);
    return r;
  }

  /**
   * The measures left out: {@code skip}, and (h) with (g), on whose folded fleet it runs (said on
   * {@code out}).
   */
  static java.util.Set<String> leftOut(java.util.Set<String> skip, PrintWriter out) {
    if (!skip.contains("g") || skip.contains("h")) {
      return skip;
    }
    say(out, "(h) runs on the fleet (g) folded: left out with (g)");
    java.util.Set<String> more = new java.util.TreeSet<>(skip);
    more.add("h");
    return more;
  }

  /** The preload, (a), (a2), (b) and, unless skipped, (d). */
  private static void pipeline(
      BenchSettings s,
      Map<String, String> overrides,
      java.util.Set<String> skip,
      BenchResults r,
      PrintWriter out,
      Path work,
      KafkaBroker broker,
      EtcdServer etcd,
      Client client)
      throws Exception {
    String bootstrap = broker.bootstrapServers();
    createTopic(bootstrap, TOPIC, PARTITIONS);
    say(out, "broker %s, etcd %s; preloading %,d events", bootstrap, etcd.endpoint(), s.events());
    FleetModel model = EventLog.model(s);
    long t = System.nanoTime();
    Fold expected = EventLog.produce(model, s.events(), TOPIC, bootstrap);
    say(
        out,
        "preloaded in %.1f s: %,d shards of %d tables",
        secs(t),
        expected.shardCount(),
        expected.targets().size());
    r.put("events", (long) s.events());
    r.put("shards", expected.shardCount());
    r.put("json_share_of_events", EventLog.JSON_SHARE);

    double limit = LimitRun.eventsPerSecond(bootstrap, TOPIC, s.events());
    r.put("limit_events_per_s", limit);
    say(out, "(a) limit: %,.0f events/s", limit);

    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("kafka.bootstrap.servers", bootstrap);
    settings.put("etcd.endpoints", etcd.endpoint());
    settings.put("etcd.prefix", "/bench/pipeline");
    settings.put("application.id", "bench-pipeline");
    settings.put("topics.events", TOPIC);
    settings.put("topics.dlq", "bench.dlq");
    settings.put("topics.shard.records", "bench.shard-records");
    settings.put("topics.table.demand", "bench.table-demand");
    settings.put("kafka.state.dir", work.resolve("state").toString());
    settings.putAll(overrides);
    r.put("settings", overrides.isEmpty() ? "defaults" : overrides.toString());
    DemandfoldConfig config = PipelineRun.config(settings);

    double decodeLimit = DecodeLimitRun.eventsPerSecond(config, TOPIC, s.events());
    r.put("limit_decode_events_per_s", decodeLimit);
    say(out, "(a2) decode limit: %,.0f events/s", decodeLimit);

    Map<String, Long> bytesBefore = KafkaBytes.byTopic(bootstrap);
    long brokerCpu0 = ProcessCpu.nanos(broker.pid());
    long etcdCpu0 = ProcessCpu.nanos(etcd.pid());
    try (PipelineRun b = new PipelineRun(config)) {
      PipelineRun.Times times = b.awaitMirrored(s.events(), expected, client, 1_800_000);
      double brokerCpu = (ProcessCpu.nanos(broker.pid()) - brokerCpu0) / 1e3 / s.events();
      double etcdCpu = (ProcessCpu.nanos(etcd.pid()) - etcdCpu0) / 1e3 / s.events();
      r.put("broker_cpu_us_per_event", brokerCpu);
      r.put("etcd_cpu_us_per_event", etcdCpu);
      Map<String, Long> written = KafkaBytes.growth(bytesBefore, KafkaBytes.byTopic(bootstrap));
      long bytes = written.values().stream().mapToLong(Long::longValue).sum();
      double rate = s.events() / times.convergeSeconds();
      r.put("pipeline_events_per_s", rate);
      r.put("pipeline_fold_seconds", times.foldSeconds());
      r.put("pipeline_converge_seconds", times.convergeSeconds());
      r.put("pipeline_fold_events_per_s", s.events() / times.foldSeconds());
      // the second half of the fold: the JIT has compiled the hot code by then
      r.put(
          "pipeline_second_half_events_per_s",
          (s.events() - s.events() / 2) / (times.foldSeconds() - times.halfSeconds()));
      r.put("pipeline_seconds", times.convergeSeconds());
      r.put("ratio_pipeline_to_limit", rate / limit);
      r.put("ratio_pipeline_to_decode_limit", rate / decodeLimit);
      long rewindsAfterB = b.service().metrics().mirror().rewinds();
      rewinds(r, out, "(b)", "pipeline_etcd_rewinds", rewindsAfterB);
      r.put("pipeline_etcd_requests", b.etcdRequests());
      r.put("etcd_requests_per_event", b.etcdRequests() / (double) s.events());
      r.put("pipeline_peak_heap_mib", b.peakHeapBytes() / 1048576.0);
      r.put("pipeline_peak_dirty_keys", b.peakDirtyKeys());
      r.put("pipeline_stream_cpu_us_per_event", b.streamCpuNanos() / 1e3 / s.events());
      r.put("pipeline_process_cpu_us_per_event", b.processCpuNanos() / 1e3 / s.events());
      r.put("kafka_bytes_written", bytes);
      r.put("kafka_bytes_written_per_event", bytes / (double) s.events());
      r.put("kafka_bytes_written_by_topic", written.toString());
      Map<String, Long> byThread = b.cpuByThreadGroup();
      StringBuilder cpu = new StringBuilder();
      byThread.entrySet().stream()
          .limit(12)
          .forEach(
              e ->
                  cpu.append(
                      e.getKey().endsWith(" (bytes allocated)")
                          ? String.format(
                              "%n    %6.2f KB/event  %s",
                              e.getValue() / 1e3 / s.events(), e.getKey())
                          : String.format(
                              "%n    %6.2f us/event  %s",
                              e.getValue() / 1e3 / s.events(), e.getKey())));
      r.put("pipeline_cpu_by_thread", byThread.toString());
      say(
          out,
          "(b) CPU per event of the broker %.1f us and of etcd %.1f us; CPU and allocation of"
              + " the bench process by thread during (b):%s",
          brokerCpu,
          etcdCpu,
          cpu);
      say(
          out,
          "(b) demandfold: %,.0f events/s (folded in %.1f s, etcd equal to the fold at %.1f s),"
              + " %,d etcd requests, peak dirty %,d; CPU per event: stream threads %.1f us,"
              + " whole process %.1f us; Kafka bytes written per event %.0f %s",
          rate,
          times.foldSeconds(),
          times.convergeSeconds(),
          b.etcdRequests(),
          b.peakDirtyKeys(),
          b.streamCpuNanos() / 1e3 / s.events(),
          b.processCpuNanos() / 1e3 / s.events(),
          bytes / (double) s.events(),
          written);

      sizes(r, b.config(), client, bootstrap, expected.shardCount(), out);

      if (skip.contains("d")) {
        return;
      }
      List<LatencySweep.Step> sweep =
          LatencySweep.run(
              out,
              LatencySweep.rates(s.latencyRate(), s.sweepBase() > 0 ? s.sweepBase() : rate),
              s.latencyDuration(),
              s.loadDuration(),
              model,
              s.events(),
              expected,
              bootstrap,
              TOPIC,
              client,
              b.config().layout(),
              b.service().metrics(),
              b.service().streams(),
              b.service()::mirrorLimit);
      LatencyRun.Result lat = sweep.get(0).latency();
      r.put("latency_offered_events_per_s", (long) sweep.get(0).offered());
      r.put("latency_events", lat.measured());
      r.put("latency_noops", lat.noops());
      r.put("latency_lost", lat.lost());
      r.put("latency_p50_ms", lat.p50());
      r.put("latency_p99_ms", lat.p99());
      r.put("latency_max_ms", lat.max());
      r.put("latency_goal_ms", LATENCY_GOAL_MS);
      ViewLag.Result view = lat.view();
      r.put("view_lag_measured", view.measured());
      r.put("view_lag_lost", view.lost());
      r.put("view_lag_p50_ms", view.p50());
      r.put("view_lag_p99_ms", view.p99());
      r.put("view_lag_max_ms", view.max());
      LatencySweep.Step half = sweep.get(2);
      r.put("latency_load_offered_events_per_s", (long) half.offered());
      r.put("latency_load_events", half.latency().measured());
      r.put("latency_load_lost", half.latency().lost());
      r.put("latency_load_p50_ms", half.latency().p50());
      r.put("latency_load_p99_ms", half.latency().p99());
      r.put("latency_load_max_ms", half.latency().max());
      r.put("latency_p99_ms_at_90pct", sweep.get(sweep.size() - 1).latency().p99());
      r.put("latency_sweep_worst_step_ratio", LatencySweep.worstStepRatio(sweep));
      r.put("latency_sweep_lost", sweep.stream().mapToLong(x -> x.latency().lost()).sum());
      r.put("latency_sweep", sweep.stream().map(LatencySweep.Step::figures).toList());
      long rewindsOfD = b.service().metrics().mirror().rewinds() - rewindsAfterB;
      rewinds(r, out, "(d)", "latency_etcd_rewinds", rewindsOfD);
    }
  }

  /**
   * What (b)'s fleet takes in etcd (value bytes of shard and table records per shard) and in the
   * changelogs once compacted (live bytes per shard, by store).
   */
  private static void sizes(
      BenchResults r,
      DemandfoldConfig config,
      Client client,
      String bootstrap,
      long shards,
      PrintWriter out)
      throws Exception {
    EtcdSnapshot end =
        EtcdSnapshot.read(client.getKVClient(), config.layout().prefix() + "/", 60_000);
    StoreSizes.Etcd etcd = StoreSizes.etcd(end.values(), config.layout());
    r.put("etcd_shard_value_bytes_per_shard", etcd.shardValueBytes() / (double) shards);
    r.put("etcd_table_value_bytes_per_shard", etcd.tableValueBytes() / (double) shards);
    r.put(
        "etcd_value_bytes_per_shard",
        (etcd.shardValueBytes() + etcd.tableValueBytes()) / (double) shards);
    StoreSizes.Changelogs logs =
        StoreSizes.changelogs(bootstrap, config.getString(DemandfoldConfig.APPLICATION_ID));
    r.put("changelog_bytes_per_shard", logs.liveBytes() / (double) shards);
    r.put("changelog_bytes_by_store", logs.byStore());
    say(
        out,
        "(b) state per shard: etcd values %.0f B (shard records %.0f, table records %.0f);"
            + " changelogs %.0f B live (%s)",
        (etcd.shardValueBytes() + etcd.tableValueBytes()) / (double) shards,
        etcd.shardValueBytes() / (double) shards,
        etcd.tableValueBytes() / (double) shards,
        logs.liveBytes() / (double) shards,
        logs.byStore());
  }

  /**
   * (f) on an etcd of its own (the keys, values and writes of (b) and (d) do not weigh on it), one
   * run per standby setting.
   */
  private static void scaleOut(
      BenchSettings s, BenchResults r, PrintWriter out, Path work, String bootstrap)
      throws Exception {
    ScaleOutSettings so = s.scaleOut();
    say(
        out,
        "(f) scale-out: %d instances (child JVMs) share %d partitions at %,d events/s; SIGKILL of"
            + " one; kafka.session.timeout.ms=%d; num.standby.replicas %s; on a fresh etcd",
        so.instances(),
        so.partitions(),
        so.rate(),
        so.sessionTimeoutMs(),
        so.standbys());
    r.put("scaleout_instances", (long) so.instances());
    r.put("scaleout_partitions", (long) so.partitions());
    r.put("scaleout_offered_events_per_s", (long) so.rate());
    r.put("scaleout_preload_events", (long) so.preloadEvents());
    r.put("scaleout_seconds_before_kill", so.beforeKill().toSeconds());
    r.put("scaleout_seconds_after_kill", so.afterKill().toSeconds());
    r.put("scaleout_session_timeout_ms", (long) so.sessionTimeoutMs());
    r.put("scaleout_heartbeat_interval_ms", (long) so.heartbeatIntervalMs());
    r.put("scaleout_instance_xmx", so.heap());
    try (EtcdServer fresh =
            EtcdServer.builder().dataDir(work.resolve("etcd-scale")).build().start();
        Client client = EtcdSettings.of(fresh.endpoint()).connect()) {
      for (int standbys : so.standbys()) {
        ScaleOutRun.Result x =
            ScaleOutRun.run(s, standbys, bootstrap, fresh.endpoint(), client, work, out);
        ScaleOutFigures.put(r, x);
      }
    }
  }

  /** (c) on an etcd of its own, so that it is not measured on what (b) and (d) left behind. */
  private static void reference(BenchSettings s, BenchResults r, PrintWriter out, Path work)
      throws Exception {
    say(
        out,
        "(c) reference: %d publishers, per-event read-join-CAS for %d s, on a fresh etcd",
        s.referencePublishers(),
        s.referenceDuration().toSeconds());
    ReferenceRun.Result ref;
    try (EtcdServer fresh =
            EtcdServer.builder().dataDir(work.resolve("etcd-reference")).build().start();
        Client refClient = EtcdSettings.of(fresh.endpoint()).connect()) {
      ref = ReferenceRun.run(s, refClient, "/bench/reference");
    }
    double refRate = ref.events() / ref.seconds();
    r.put("reference_publishers", (long) s.referencePublishers());
    r.put("reference_seconds", ref.seconds());
    r.put("reference_events", ref.events());
    r.put("reference_events_per_s", refRate);
    r.put("reference_etcd_requests_per_event", ref.etcdRequests() / (double) ref.events());
    r.put("ratio_pipeline_to_reference", r.number("pipeline_events_per_s") / refRate);
    say(out, "(c) reference: %,.0f events/s", refRate);
    rewinds(r, out, "(c)", "reference_etcd_rewinds", ref.etcdRewinds());
  }

  /** Creates {@code topic} (kept forever, never compacted) and waits for its leaders. */
  static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, partitions, (short) 1)
                      .configs(Map.of("retention.ms", "-1", "cleanup.policy", "delete"))))
          .all()
          .get(60, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get()
          .get(topic)
          .partitions()
          .stream()
          .anyMatch(p -> p.leader() == null)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("partitions of " + topic + " have no leader");
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Puts and prints how often the mirrors of a measure saw etcd lose writes ({@link EtcdRewinds}):
   * 0 on the bench's healthy etcd.
   */
  static void rewinds(BenchResults r, PrintWriter out, String measure, String key, long n) {
    EtcdRewinds.put(r, key, n);
    say(
        out,
        "%s etcd lost writes, as the mirror saw them (demandfold_mirror_etcd_rewound_total): %d%s",
        measure,
        n,
        n == 0 ? "" : " (each one wrote every record of the instance's tasks again)");
  }

  private static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void say(PrintWriter out, String format, Object... args) {
    out.printf("bench: " + format + "%n", args);
    out.flush();
  }
}
