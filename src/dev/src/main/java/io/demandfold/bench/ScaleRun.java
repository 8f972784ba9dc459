package io.demandfold.bench;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.Fold;
import io.demandfold.local.EtcdServer;
import io.demandfold.local.ServiceProcess;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.ops.Audit;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Maintenance;
import io.etcd.jetcd.options.CompactOption;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;

/**
 * (g) A million shards: events preloaded for the fleet of {@link ScaleSettings}, folded by a {@code
 * demandfold run} child with the mirror on, on an etcd of its own, until etcd equals the offline
 * fold; then what that state takes (etcd values, etcd's database after compaction and
 * defragmentation, the changelogs), the child's heap and resident set, a restart with a wiped state
 * directory, and {@code audit} and {@code rebuild} as children with a small heap. (h) follows on
 * the same etcd.
 */
final class ScaleRun {
  static final String TOPIC = "bench.scale.events";
  static final String APP = "bench-scale";
  static final String PREFIX = "/bench/scale";
  static final String REBUILD_PREFIX = "/bench/scale-rebuild";
  private static final Duration PATIENCE = Duration.ofMinutes(30);

  private ScaleRun() {}

  /**
   * Runs (g) and, when {@code live}, (h) after it on its etcd ({@link LiveScaleRun}); puts {@code
   * scale_run_seconds} (all of (g)) and {@code live_scale_run_seconds} (all of (h)). A failure of
   * (h) is put as {@code live_scale_failed} and the run goes on.
   */
  static void run(
      BenchSettings s, BenchResults r, PrintWriter out, Path work, String bootstrap, boolean live)
      throws Exception {
    long started = System.nanoTime();
    ScaleSettings g = s.scale();
    Path dir = work.resolve("scale");
    Files.createDirectories(dir);
    say(
        out,
        "(g) %,d shards (%,d tables x %d), %,d events; a demandfold run child with -Xmx%s, on a"
            + " fresh etcd",
        g.shards(),
        g.targets(),
        g.shardsPerTarget(),
        g.events(),
        g.serviceHeap());
    try (EtcdServer etcd = EtcdServer.builder().dataDir(dir.resolve("etcd")).build().start();
        Client client = EtcdSettings.of(etcd.endpoint()).connect();
        Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      Bench.createTopic(bootstrap, TOPIC, Bench.PARTITIONS);
      FleetModel model = new FleetModel(EventLog.SEED + 2, g.targets(), g.shardsPerTarget());
      long t = System.nanoTime();
      Fold fold = EventLog.produce(model, g.events(), TOPIC, bootstrap);
      long shards = fold.shardCount();
      say(out, "(g) preloaded in %.1f s: %,d shards hold events", secs(t), shards);
      r.put("scale_shards", shards);
      r.put("scale_events", (long) g.events());
      r.put("scale_service_xmx", g.serviceHeap());
      r.put("scale_ops_xmx", g.opsHeap());

      Map<String, String> settings = settings(bootstrap, etcd.endpoint(), dir.resolve("state"));
      DemandfoldConfig config = PipelineRun.config(settings);
      SortedMap<String, byte[]> expected =
          Audit.expected(
              fold,
              config.layout(),
              config.getBoolean(DemandfoldConfig.MIRROR_TABLES),
              config.getInt(DemandfoldConfig.ETCD_MAX_REQUEST_BYTES));
      fold = null;
      Path gcLog = dir.resolve("service-gc.log");
      EtcdCompare.Result equal;
      try (ServiceProcess p = start(g, settings, gcLog, dir.resolve("service.log"))) {
        ServiceHttp http = new ServiceHttp(Integer.parseInt(settings.get("http.port")));
        long t0 = http.awaitReady(p, PATIENCE);
        awaitCommitted(admin, p);
        double foldSeconds = secs(t0);
        equal = awaitEqual(client, expected, http, p);
        double converge = secs(t0);
        ServiceCounters mirrored = http.counters();
        double rate = g.events() / converge;
        r.put("scale_fold_seconds", foldSeconds);
        r.put("scale_converge_seconds", converge);
        r.put("scale_events_per_s", rate);
        if (r.get("pipeline_events_per_s") != null) {
          r.put("ratio_scale_to_pipeline", rate / r.number("pipeline_events_per_s"));
        }
        r.put("scale_heap_mib", JvmProbe.peakHeapMib(gcLog));
        r.put("scale_rss_mib", JvmProbe.peakRssMib(p.pid()));
        r.put("scale_heap_live_mib", JvmProbe.liveHeapMib(p.pid()));
        say(
            out,
            "(g) folded in %.1f s, etcd equal to the fold at %.1f s: %,.0f events/s; service heap"
                + " peak %.0f MiB (live after a full GC %.0f MiB), peak RSS %.0f MiB",
            foldSeconds,
            converge,
            rate,
            r.number("scale_heap_mib"),
            r.number("scale_heap_live_mib"),
            r.number("scale_rss_mib"));
        ScaleFigures.putMirror(r, mirrored, converge);
        say(
            out,
            "(g) the mirror wrote %,.0f keys/s (%,.0f shard and %,.0f table keys), %.1f keys a"
                + " transaction; it sent etcd %,.0f MB for shard records and %,.0f MB for table"
                + " records in %,.0f requests",
            r.number("scale_mirror_keys_per_s"),
            mirrored.shardKeys(),
            mirrored.tableKeys(),
            r.number("scale_mirror_keys_per_txn"),
            mirrored.shardBytes() / 1e6,
            mirrored.tableBytes() / 1e6,
            mirrored.requests());
      }
      sizes(r, out, bootstrap, etcd, equal, shards);
      restore(r, out, g, settings, dir);
      ops(r, out, g, settings, dir, client.getKVClient(), expected);
      Bench.rewinds(
          r,
          out,
          "(g)",
          "scale_etcd_rewinds",
          EtcdRewinds.inLogs(
              dir.resolve("service.log"),
              dir.resolve("service-restart.log"),
              dir.resolve("rebuild.log")));
      r.put("scale_run_seconds", secs(started));
      if (live) {
        long h = System.nanoTime();
        try {
          dropRebuilt(etcd, out);
          LiveScaleRun.run(
              g,
              model,
              g.events(),
              expected,
              settings,
              dir,
              etcd,
              client,
              admin,
              bootstrap,
              r,
              out);
        } catch (Exception e) {
          r.put("live_scale_failed", String.valueOf(e));
          say(out, "(h) FAILED: %s", e);
        }
        r.put("live_scale_run_seconds", secs(h));
      }
    }
  }

  /**
   * Deletes what {@code rebuild} wrote beside the pipeline's prefix, so that (h) runs on an etcd
   * that holds the fold alone, as (g) left it.
   */
  private static void dropRebuilt(EtcdServer etcd, PrintWriter out) throws Exception {
    long t = System.nanoTime();
    try (Client client =
        EtcdSettings.of(etcd.endpoint()).withRequestTimeout(Duration.ofMinutes(10)).connect()) {
      long deleted =
          client
              .getKVClient()
              .delete(
                  ByteSequence.from(REBUILD_PREFIX + "/", StandardCharsets.UTF_8),
                  io.etcd.jetcd.options.DeleteOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.MINUTES)
              .getDeleted();
      say(out, "(h) deleted the %,d keys rebuild wrote, in %.1f s", deleted, secs(t));
    }
  }

  /**
   * {@code audit} of the pipeline's prefix, then {@code rebuild} into an empty one, each a child
   * with {@link ScaleSettings#opsHeap}; the rebuilt prefix is checked against the fold. A command
   * that fails (e.g. runs out of heap) is a figure too: its reason goes into the results and the
   * run goes on.
   */
  private static void ops(
      BenchResults r,
      PrintWriter out,
      ScaleSettings g,
      Map<String, String> settings,
      Path dir,
      KV kv,
      SortedMap<String, byte[]> expected)
      throws Exception {
    Path auditGc = dir.resolve("audit-gc.log");
    try {
      r.put(
          "scale_audit_seconds",
          OpsChild.run("audit", g.opsHeap(), auditGc, settings, dir.resolve("audit.log")));
    } catch (IllegalStateException e) {
      r.put("scale_audit_failed", e.getMessage());
      say(out, "(g) audit -Xmx%s FAILED: %s", g.opsHeap(), e.getMessage());
    }
    r.put("scale_audit_heap_mib", JvmProbe.peakHeapMib(auditGc));
    Map<String, String> rebuildSettings = new LinkedHashMap<>(settings);
    rebuildSettings.put("etcd.prefix", REBUILD_PREFIX);
    Path rebuildGc = dir.resolve("rebuild-gc.log");
    try {
      r.put(
          "scale_rebuild_seconds",
          OpsChild.run(
              "rebuild", g.opsHeap(), rebuildGc, rebuildSettings, dir.resolve("rebuild.log")));
      EtcdCompare.Result rebuilt = EtcdCompare.run(kv, expected, PREFIX, REBUILD_PREFIX);
      if (rebuilt.differing() != 0) {
        throw new IllegalStateException(
            "rebuild into "
                + REBUILD_PREFIX
                + " left "
                + rebuilt.differing()
                + " keys unlike the fold, e.g. "
                + rebuilt.firstDifference());
      }
      r.put("scale_rebuild_keys", rebuilt.compared());
    } catch (IllegalStateException e) {
      r.put("scale_rebuild_failed", e.getMessage());
      say(out, "(g) rebuild -Xmx%s FAILED: %s", g.opsHeap(), e.getMessage());
    }
    r.put("scale_rebuild_heap_mib", JvmProbe.peakHeapMib(rebuildGc));
    say(
        out,
        "(g) -Xmx%s: audit (etcd identical to the log) %s s, peak heap %.0f MiB; rebuild into"
            + " an empty prefix (its keys then equal the fold) %s s, peak heap %.0f MiB",
        g.opsHeap(),
        r.get("scale_audit_seconds") == null
            ? "FAILED"
            : String.format("%.1f", r.number("scale_audit_seconds")),
        r.number("scale_audit_heap_mib"),
        r.get("scale_rebuild_seconds") == null || r.get("scale_rebuild_failed") != null
            ? "FAILED"
            : String.format("%.1f", r.number("scale_rebuild_seconds")),
        r.number("scale_rebuild_heap_mib"));
  }

  /** etcd value bytes, etcd's database after compaction and defrag, the changelogs; per shard. */
  private static void sizes(
      BenchResults r,
      PrintWriter out,
      String bootstrap,
      EtcdServer etcd,
      EtcdCompare.Result equal,
      long shards)
      throws Exception {
    long before;
    long after;
    // a defrag of a few GB takes longer than the mirror's 5 s requests
    try (Client client =
        EtcdSettings.of(etcd.endpoint()).withRequestTimeout(Duration.ofMinutes(10)).connect()) {
      Maintenance m = client.getMaintenanceClient();
      before = m.statusMember(etcd.endpoint()).get(10, TimeUnit.MINUTES).getDbSize();
      compactAll(client);
      m.defragmentMember(etcd.endpoint()).get(10, TimeUnit.MINUTES);
      after = m.statusMember(etcd.endpoint()).get(10, TimeUnit.MINUTES).getDbSize();
    }
    StoreSizes.Changelogs logs = StoreSizes.changelogs(bootstrap, APP);
    double values = (equal.shardValueBytes() + equal.tableValueBytes()) / (double) shards;
    r.put("scale_etcd_value_bytes_per_shard", values);
    r.put("scale_etcd_shard_value_bytes_per_shard", equal.shardValueBytes() / (double) shards);
    r.put("scale_etcd_table_value_bytes_per_shard", equal.tableValueBytes() / (double) shards);
    r.put("scale_etcd_db_bytes_before_defrag", before);
    r.put("scale_etcd_db_bytes", after);
    r.put("scale_etcd_db_bytes_per_shard", after / (double) shards);
    r.put("scale_changelog_bytes_per_shard", logs.liveBytes() / (double) shards);
    r.put("scale_changelog_bytes_by_store", logs.byStore());
    say(
        out,
        "(g) per shard: etcd values %.0f B (shard records %.0f, table records %.0f), etcd dbSize"
            + " %.0f B after compaction and defrag (%,d MB, %,d MB before); changelogs %.0f B"
            + " live (%s)",
        values,
        equal.shardValueBytes() / (double) shards,
        equal.tableValueBytes() / (double) shards,
        after / (double) shards,
        after / 1_000_000,
        before / 1_000_000,
        logs.liveBytes() / (double) shards,
        logs.byStore());
  }

  /**
   * Compacts etcd's history up to its current revision (the service has stopped). etcd compacts on
   * its own every minute here ({@code --auto-compaction-retention 1m}): the comparison's revision
   * may be gone already, and the current one too by the time the call arrives, which is as good.
   */
  private static void compactAll(Client client) throws Exception {
    // one key's read (not a count of the prefix, a walk of a million keys): its header's revision
    long now =
        client
            .getKVClient()
            .get(ByteSequence.from(PREFIX, StandardCharsets.UTF_8))
            .get(10, TimeUnit.MINUTES)
            .getHeader()
            .getRevision();
    try {
      client
          .getKVClient()
          .compact(now, CompactOption.builder().withCompactPhysical(true).build())
          .get(10, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      if (!String.valueOf(e.getCause().getMessage())
          .contains("required revision has been compacted")) {
        throw e;
      }
    }
  }

  /** Stops the service, wipes its state directory and times a new one to ready. */
  private static void restore(
      BenchResults r, PrintWriter out, ScaleSettings g, Map<String, String> settings, Path dir)
      throws Exception {
    wipe(Path.of(settings.get("kafka.state.dir")));
    Path log = dir.resolve("service-restart.log");
    try (ServiceProcess p = start(g, settings, dir.resolve("service-restart-gc.log"), log)) {
      long t0 = System.nanoTime();
      new ServiceHttp(Integer.parseInt(settings.get("http.port"))).awaitReady(p, PATIENCE);
      double seconds = secs(t0);
      List<Restores.Restore> restores = Restores.parse(Files.readString(log));
      r.put("scale_restore_seconds", seconds);
      r.put("scale_restored_records", Restores.records(restores));
      r.put("scale_restore_longest_ms", Restores.longestMs(restores));
      say(
          out,
          "(g) restart with a wiped state directory: ready after %.1f s (JVM start included);"
              + " restored %s",
          seconds,
          Restores.byStore(restores));
    }
  }

  private static ServiceProcess start(
      ScaleSettings g, Map<String, String> settings, Path gcLog, Path log) {
    return ServiceProcess.start(
        "demandfold run (g)", g.serviceHeap(), List.of(JvmProbe.gcLogOption(gcLog)), settings, log);
  }

  private static Map<String, String> settings(String bootstrap, String etcd, Path state) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("kafka.bootstrap.servers", bootstrap);
    m.put("etcd.endpoints", etcd);
    m.put("etcd.prefix", PREFIX);
    m.put("application.id", APP);
    m.put("topics.events", TOPIC);
    m.put("topics.dlq", "bench.scale.dlq");
    m.put("topics.shard.records", "bench.scale.shard-records");
    m.put("topics.table.demand", "bench.scale.table-demand");
    m.put("kafka.state.dir", state.toString());
    m.put("http.host", "127.0.0.1");
    m.put("http.port", Integer.toString(freePort()));
    return m;
  }

  /** Waits until the group committed every event of the topic. */
  private static void awaitCommitted(Admin admin, ServiceProcess p) throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (ScaleOutRun.lag(admin, APP, TOPIC) != 0) {
      alive(p, deadline, "the group to commit every event");
      Thread.sleep(200);
    }
  }

  /** Waits until no key waits for etcd and etcd equals {@code expected}; its last comparison. */
  private static EtcdCompare.Result awaitEqual(
      Client client, SortedMap<String, byte[]> expected, ServiceHttp http, ServiceProcess p)
      throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    EtcdCompare.Result last = null;
    while (true) {
      alive(p, deadline, "etcd to equal the fold" + (last == null ? "" : ", last " + last));
      if (http.dirtyKeys() == 0) {
        last = EtcdCompare.run(client.getKVClient(), expected, PREFIX, PREFIX);
        if (last.differing() == 0) {
          return last;
        }
      }
      Thread.sleep(200);
    }
  }

  static void alive(ServiceProcess p, long deadline, String what) {
    if (!p.isAlive()) {
      throw new IllegalStateException(
          "the service child exited while waiting for " + what + "; " + p.logTail(30));
    }
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("gave up waiting for " + what);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void wipe(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path x : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(x);
      }
    }
  }

  private static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void say(PrintWriter out, String format, Object... args) {
    out.printf("bench: " + format + "%n", args);
    out.flush();
  }
}
