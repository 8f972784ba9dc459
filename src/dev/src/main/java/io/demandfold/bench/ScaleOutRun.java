package io.demandfold.bench;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.local.ServiceProcess;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.ops.Audit;
import io.demandfold.ops.EtcdSnapshot;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * (f) Scale-out: {@link ScaleOutSettings#instances()} {@code demandfold run} child JVMs share an
 * events topic of {@link ScaleOutSettings#partitions()} partitions; once the group has spread the
 * partitions evenly, events are preloaded and folded, then offered at a steady rate; in the middle
 * of that one instance gets SIGKILL. The run reports when the killed instance's partitions resume
 * (see {@link ResumeClock}), when the group handed them on, how long the survivors restored stores
 * (from their logs), and at the end that etcd equals the offline fold of every event sent, and the
 * sizes of the state per shard. One run per value of {@code num.standby.replicas}, each with its
 * own topics, application id, etcd prefix and state directories.
 */
final class ScaleOutRun {
  private static final Duration PATIENCE = Duration.ofMinutes(3);
  private static final Duration CONVERGE_PATIENCE = Duration.ofMinutes(10);

  private ScaleOutRun() {}

  /** The figures of one run. */
  record Result(
      int standbys,
      List<Integer> killedPartitions,
      long events,
      long shards,
      double preloadSeconds,
      int pendingKilledAtKill,
      int pendingOthersAtKill,
      double takeoverMs,
      double firstWriteMs,
      double killedCaughtUpMs,
      double othersCaughtUpMs,
      List<Restores.Restore> restores,
      double convergeMs,
      boolean etcdEqual,
      long stateDirBytes,
      StoreSizes.Etcd etcd,
      long changelogLiveBytes,
      int changelogLiveKeys,
      String changelogLiveByStore,
      long changelogHeldBytes,
      long etcdRewinds) {}

  static Result run(
      BenchSettings s,
      int standbys,
      String bootstrap,
      String etcdEndpoint,
      Client etcd,
      Path work,
      PrintWriter out)
      throws Exception {
    ScaleOutSettings so = s.scaleOut();
    String tag = "standby" + standbys;
    String app = "bench-scale-" + tag;
    String topic = "bench.scale-" + tag + ".events";
    Path dir = work.resolve("scale-" + tag);
    Map<String, String> common = new LinkedHashMap<>();
    common.put("kafka.bootstrap.servers", bootstrap);
    common.put("etcd.endpoints", etcdEndpoint);
    common.put("etcd.prefix", "/bench/scale-" + tag);
    common.put("application.id", app);
    common.put("topics.events", topic);
    common.put("topics.dlq", "bench.scale-" + tag + ".dlq");
    common.put("topics.shard.records", "bench.scale-" + tag + ".shard-records");
    common.put("topics.table.demand", "bench.scale-" + tag + ".table-demand");
    common.put("kafka.session.timeout.ms", Integer.toString(so.sessionTimeoutMs()));
    common.put("kafka.heartbeat.interval.ms", Integer.toString(so.heartbeatIntervalMs()));
    common.put("kafka.num.standby.replicas", Integer.toString(standbys));
    common.put("http.port", "0");
    DemandfoldConfig config = PipelineRun.config(common);
    EtcdLayout layout = config.layout();

    Bench.createTopic(bootstrap, topic, so.partitions());
    List<ServiceProcess> instances = new ArrayList<>();
    SteadyProducer steady = null;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      for (int i = 0; i < so.instances(); i++) {
        Map<String, String> settings = new LinkedHashMap<>(common);
        settings.put("kafka.client.id", clientId(app, i));
        settings.put("kafka.state.dir", dir.resolve("state-" + i).toString());
        instances.add(
            ServiceProcess.start(
                "demandfold run " + i, so.heap(), settings, dir.resolve("instance-" + i + ".log")));
      }
      InstanceGroup group = new InstanceGroup(admin, app, topic, so.partitions(), instances);
      Map<Integer, Set<Integer>> owners = group.awaitBalanced(PATIENCE);
      say(
          out,
          "(f) %s: %d instances share %d partitions: %s",
          tag,
          so.instances(),
          so.partitions(),
          owners);

      FleetModel model = EventLog.model(s);
      long t = System.nanoTime();
      Fold fold = EventLog.produce(model, so.preloadEvents(), topic, bootstrap);
      awaitEqual(admin, app, topic, fold, config, etcd, instances, null, null);
      double preloadSeconds = (System.nanoTime() - t) / 1e9;
      say(
          out,
          "(f) %s: %,d events preloaded and etcd equal to their fold after %.1f s",
          tag,
          so.preloadEvents(),
          preloadSeconds);

      String from = layout.shardRecordsPrefix();
      try (ShardWrites writes = new ShardWrites(etcd, from)) {
        long duration = so.beforeKill().toSeconds() + so.afterKill().toSeconds();
        steady =
            new SteadyProducer(
                model, fold, so.preloadEvents(), so.rate(), duration, topic, bootstrap);
        steady.start();
        say(
            out,
            "(f) %s: offering %,d events/s; SIGKILL of instance %d in %d s",
            tag,
            so.rate(),
            so.victim(),
            so.beforeKill().toSeconds());
        Thread.sleep(so.beforeKill().toMillis());

        owners = group.assignment();
        Set<Integer> killed = owners.getOrDefault(so.victim(), Set.of());
        if (killed.isEmpty() || !group.balanced(owners)) {
          throw new IllegalStateException(
              "before the kill the partitions are not spread evenly: " + owners);
        }
        ServiceProcess victim = instances.get(so.victim());
        long[] logFrom = new long[instances.size()];
        for (int i = 0; i < instances.size(); i++) {
          logFrom[i] = Files.size(instances.get(i).log());
        }
        SteadyProducer.Kill kill =
            steady.kill(
                () -> {
                  writes.record();
                  victim.sigkill();
                });
        if (!victim.awaitExit(Duration.ofSeconds(30))) {
          throw new IllegalStateException("instance " + so.victim() + " survived SIGKILL");
        }
        EtcdSnapshot atKill = EtcdSnapshot.read(etcd.getKVClient(), from, 60_000);
        Map<String, ShardRecord> held = new HashMap<>();
        atKill
            .values()
            .forEach((k, v) -> held.put(k.substring(from.length()), ShardWrites.decode(v)));
        int partitions = so.partitions();
        ResumeClock clock =
            new ResumeClock(
                kill.nanos(),
                atKill.revision(),
                key -> killed.contains(Keys.partition(key, partitions)),
                kill.sent(),
                held);
        say(
            out,
            "(f) %s: SIGKILL of instance %d (partitions %s); etcd lacked events sent before it"
                + " for %,d shards of those partitions and %,d of the others",
            tag,
            so.victim(),
            killed,
            clock.pendingKilledAtKill(),
            clock.pendingOthersAtKill());

        double takeover = Double.NaN;
        while (steady.isAlive()) {
          writes.drainTo(clock);
          if (Double.isNaN(takeover) && group.takenOver(so.victim())) {
            takeover = (System.nanoTime() - kill.nanos()) / 1e6;
          }
          requireAlive(instances, so.victim());
          Thread.sleep(50);
        }
        steady.join();
        long lastSent = steady.lastSentNanos();
        if (Double.isNaN(takeover) && group.takenOver(so.victim())) {
          takeover = (System.nanoTime() - kill.nanos()) / 1e6;
        }
        awaitEqual(admin, app, topic, fold, config, etcd, instances, writes, clock);
        double converge = (System.nanoTime() - lastSent) / 1e6;
        writes.drainTo(clock);

        List<Restores.Restore> restores = new ArrayList<>();
        long stateBytes = 0;
        for (int i = 0; i < instances.size(); i++) {
          if (i != so.victim()) {
            restores.addAll(Restores.parse(readFrom(instances.get(i).log(), logFrom[i])));
            stateBytes += StoreSizes.directoryBytes(dir.resolve("state-" + i));
          }
        }
        EtcdSnapshot end = EtcdSnapshot.read(etcd.getKVClient(), layout.prefix() + "/", 60_000);
        StoreSizes.Changelogs logs = StoreSizes.changelogs(bootstrap, app);
        List<String> changelogs = logs.names();
        long liveBytes = logs.liveBytes();
        int liveKeys = logs.liveKeys();
        String byStore = logs.byStore();
        long changelogHeld = 0;
        Map<String, Long> bytes = KafkaBytes.byTopic(bootstrap);
        for (String c : changelogs) {
          changelogHeld += bytes.getOrDefault(c, 0L);
        }
        Result r =
            new Result(
                standbys,
                List.copyOf(new TreeSet<>(killed)),
                fold.events(),
                fold.shardCount(),
                preloadSeconds,
                clock.pendingKilledAtKill(),
                clock.pendingOthersAtKill(),
                takeover,
                clock.firstWriteMs(),
                clock.killedCaughtUpMs(),
                clock.othersCaughtUpMs(),
                restores,
                converge,
                true,
                stateBytes,
                StoreSizes.etcd(end.values(), layout),
                liveBytes,
                liveKeys,
                byStore.toString(),
                changelogHeld,
                EtcdRewinds.inLogs(
                    instances.stream().map(ServiceProcess::log).toArray(Path[]::new)));
        say(
            out,
            "(f) %s: group handed the partitions on after %.1f s; first etcd write of a killed"
                + " partition's shard after %.1f s; those partitions caught up after %.1f s, the"
                + " others after %.1f s; restores of the survivors: %s; etcd equal to the"
                + " offline fold of %,d events %.1f s after the last was sent",
            tag,
            takeover / 1000,
            clock.firstWriteMs() / 1000,
            clock.killedCaughtUpMs() / 1000,
            clock.othersCaughtUpMs() / 1000,
            Restores.byStore(restores),
            fold.events(),
            converge / 1000);
        StoreSizes.Etcd sizes = r.etcd();
        say(
            out,
            "(f) %s: state of %,d shards: state directories of the survivors %,d B; changelogs"
                + " %,d B held, %,d B live (%s); etcd %,d shard keys of %,d B and %,d table keys"
                + " of %,d B; etcd lost writes, as the mirrors saw them: %d",
            tag,
            fold.shardCount(),
            stateBytes,
            changelogHeld,
            liveBytes,
            r.changelogLiveByStore(),
            sizes.shardKeys(),
            sizes.shardKeyBytes() + sizes.shardValueBytes(),
            sizes.tableKeys(),
            sizes.tableKeyBytes() + sizes.tableValueBytes(),
            r.etcdRewinds());
        return r;
      }
    } catch (Exception | Error e) {
      for (int i = 0; i < instances.size(); i++) {
        say(
            out,
            "(f) log of instance %d (%s):%n%s",
            i,
            instances.get(i).log(),
            instances.get(i).logTail(30));
      }
      throw e;
    } finally {
      if (steady != null) {
        steady.interrupt();
        steady.join(10_000);
      }
      for (ServiceProcess p : instances) {
        p.close();
      }
    }
  }

  static String clientId(String app, int instance) {
    return app + "-i" + instance;
  }

  private static String readFrom(Path file, long offset) throws IOException {
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long n = Math.max(0, in.length() - offset);
      byte[] b = new byte[(int) Math.min(n, Integer.MAX_VALUE - 8)];
      in.seek(offset);
      in.readFully(b);
      return new String(b, StandardCharsets.UTF_8);
    }
  }

  static void requireAlive(List<ServiceProcess> instances, int victim) {
    for (int i = 0; i < instances.size(); i++) {
      if (i != victim && !instances.get(i).isAlive()) {
        throw new IllegalStateException(
            "instance " + i + " exited; its log " + instances.get(i).log());
      }
    }
  }

  /**
   * Waits until the group has committed every event of {@code topic}, then until etcd equals the
   * offline fold (shard and table records); meanwhile feeds the watch's writes to {@code clock}.
   */
  private static void awaitEqual(
      Admin admin,
      String app,
      String topic,
      Fold fold,
      DemandfoldConfig config,
      Client etcd,
      List<ServiceProcess> instances,
      ShardWrites writes,
      ResumeClock clock)
      throws Exception {
    SortedMap<String, byte[]> expected =
        Audit.expected(
            fold, config.layout(), true, config.getInt(DemandfoldConfig.ETCD_MAX_REQUEST_BYTES));
    long deadline = System.nanoTime() + CONVERGE_PATIENCE.toNanos();
    Audit.Report last = null;
    while (System.nanoTime() < deadline) {
      if (writes != null) {
        writes.drainTo(clock);
      }
      if (instances.stream().noneMatch(ServiceProcess::isAlive)) {
        throw new IllegalStateException("every instance exited");
      }
      if (lag(admin, app, topic) == 0) {
        EtcdSnapshot now =
            EtcdSnapshot.read(etcd.getKVClient(), config.layout().prefix() + "/", 60_000);
        last = Audit.compare(expected, now, config.layout(), true);
        if (last.identical()) {
          return;
        }
        Thread.sleep(500);
      } else {
        Thread.sleep(200);
      }
    }
    throw new IllegalStateException(
        "etcd did not come to equal the offline fold in "
            + CONVERGE_PATIENCE.toMinutes()
            + " minutes"
            + (last == null
                ? " (the group did not commit every event)"
                : ": "
                    + last.divergences().size()
                    + " keys differ, e.g. "
                    + last.divergences().get(0)));
  }

  /** Events of {@code topic} not yet committed by the group {@code app}. */
  static long lag(Admin admin, String app, String topic) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(app)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
    int partitions =
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(topic)
            .partitions()
            .size();
    for (int p = 0; p < partitions; p++) {
      ask.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    long lag = 0;
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e :
        admin.listOffsets(ask).all().get(30, TimeUnit.SECONDS).entrySet()) {
      OffsetAndMetadata c = committed.get(e.getKey());
      lag += e.getValue().offset() - (c == null ? 0 : c.offset());
    }
    return lag;
  }

  private static void say(PrintWriter out, String format, Object... args) {
    out.printf("bench: " + format + "%n", args);
    out.flush();
  }
}
