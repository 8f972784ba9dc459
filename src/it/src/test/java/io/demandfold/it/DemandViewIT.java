package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.demandfold.local.EtcdServer;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.mirror.PrefixScan;
import io.demandfold.view.DemandView;
import io.demandfold.view.ShardDemand;
import io.demandfold.view.TableChange;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link DemandView} against real etcd: a three-member cluster whose leader is SIGKILLed while
 * table records are written (every revision reaches the listener once, in order, and the view
 * equals a fresh read); a disconnect during which etcd compacts the revision the view would resume
 * from (a resync, then equal); every key of a transaction, of a range delete and of a transaction
 * mixing puts and deletes; a backlog over the client's message limit and one over the queue's bytes
 * (a resync each, never a loop); etcd restored from an older snapshot under the view (noticed, a
 * resync); records of a newer schema and unreadable ones (refused, never read as zero); and the
 * reference system's scale, 13,405 tables of 10 shards (snapshot time and heap printed).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DemandViewIT {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final long T0 = 1_764_400_000_000L;

  /** A table record of {@code shards} shards sealed through {@code sealed}, nothing merged. */
  static TableRecord table(int shards, long sealed) {
    return table(shards, sealed, T0);
  }

  /** {@link #table(int, long)} with generation {@code g} flushed at {@code base + g} seconds. */
  static TableRecord table(int shards, long sealed, long base) {
    List<ShardRecord> records = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      ShardRecord.Builder r =
          Events.writer("shard-" + i, sealed, 1, base + sealed * 1000).toBuilder()
              .sealedBytesThrough(sealed << 20);
      for (long g = 1; g <= sealed && g <= 3; g++) {
        r.sealedTime(g, base + g * 1000);
      }
      records.add(r.build());
    }
    return TableRecord.of(records);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /**
   * Two views: one on every member, one on the leader's endpoint alone, whose watch surely fails at
   * the kill and resumes once the member rejoins.
   */
  @Test
  void shouldApplyEveryRevisionOnceAndInOrderWhileTheEtcdLeaderIsKilled() throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-kill");
    ViewRecorder seenAll = new ViewRecorder();
    ViewRecorder seenOne = new ViewRecorder();
    SimpleMeterRegistry registryAll = new SimpleMeterRegistry();
    SimpleMeterRegistry registryOne = new SimpleMeterRegistry();
    try (EtcdCluster etcd = EtcdCluster.of(3).startAll();
        Client writer = Client.builder().endpoints(etcd.endpoints().split(",")).build()) {
      int leader = etcd.leader(writer);
      try (DemandView all = view(List.of(etcd.endpoints().split(",")), layout, registryAll);
          DemandView one = view(List.of(etcd.endpoint(leader)), layout, registryOne)) {
        EtcdMirror mirror =
            EtcdMirror.builder()
                .kv(writer.getKVClient())
                .layout(layout)
                .maxRetries(5)
                .timeout(Duration.ofSeconds(2))
                .maxRequestBytes(1_572_864)
                .metrics(MirrorMetrics.detached())
                .build();
        all.addListener(seenAll);
        one.addListener(seenOne);
        all.start();
        one.start();
        long start = Math.min(all.revision(), one.revision());
        int targets = 16;
        int rounds = 42;
        long failed = 0;
        for (int round = 1; round <= rounds; round++) {
          if (round == rounds / 3) {
            etcd.kill(leader);
          } else if (round == 2 * rounds / 3) {
            etcd.start(leader); // rejoins; the view on it alone resumes
          }
          for (int t = 0; t < targets; t++) {
            TableRecord r = table(3, round);
            // a write cut by the kill is tried again until it is settled
            while (mirror.mirrorTable(Keys.hex("t" + t), r).get(30, TimeUnit.SECONDS).result()
                == MirrorResult.FAILED) {
              failed++;
              Thread.sleep(50);
            }
          }
        }
        Map<String, String> fresh = ViewRecorder.fresh(writer.getKVClient(), layout);
        long end = maxRevision(fresh);
        List<String> written = history(writer, layout, start, end);
        assertThat(written).hasSizeGreaterThanOrEqualTo(targets * rounds);
        for (DemandView v : List.of(all, one)) {
          ViewRecorder seen = v == all ? seenAll : seenOne;
          String which = v == all ? "the view on every member" : "the view on the leader alone";
          Harness.await(which + " at revision " + end, v::revision, r -> r >= end, PATIENCE);
          assertThat(ViewRecorder.describe(v.tables())).as(which).isEqualTo(fresh);
          assertThat(seen.replayed(Map.of()))
              .as(which + ": every final value heard")
              .isEqualTo(fresh);
          List<String> heard =
              seen.changes().stream().map(c -> c.target() + "@" + c.revision()).toList();
          assertThat(heard).as(which + ": every revision heard once, in order").isEqualTo(written);
          assertThat(seen.threads()).containsOnly("demandfold-view" + layout.prefix());
          assertThat(seen.resyncs()).isEmpty();
        }
        assertThat(
                registryOne
                        .get("demandfold.view.watch.restarts")
                        .tag("reason", "failed")
                        .counter()
                        .count()
                    + registryOne
                        .get("demandfold.view.watch.restarts")
                        .tag("reason", "stalled")
                        .counter()
                        .count())
            .as("restarts of the watch on the killed member")
            .isPositive();
        System.out.printf(
            "DemandViewIT figures: leader e%d SIGKILLed after %d of %d writes, rejoined after %d;"
                + " %d writes cut by the kill and tried again; %d changes heard by each view, none"
                + " missed or repeated; watch restarts: view on every member %s, on the leader"
                + " alone %s%n",
            leader + 1,
            targets * (rounds / 3 - 1),
            targets * rounds,
            targets * (2 * rounds / 3 - 1),
            failed,
            written.size(),
            restarts(registryAll),
            restarts(registryOne));
      }
    }
  }

  private static DemandView view(List<String> endpoints, EtcdLayout layout, SimpleMeterRegistry r) {
    return DemandView.builder()
        .endpoints(endpoints)
        .prefix(layout.prefix())
        .requestTimeout(Duration.ofSeconds(2))
        .progressInterval(Duration.ofMillis(200))
        .meterRegistry(r)
        .build();
  }

  @Test
  void shouldResyncWhenEtcdCompactsTheRevisionToResumeFromDuringADisconnect() throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-compact");
    ViewRecorder seen = new ViewRecorder();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicBoolean cut = new AtomicBoolean();
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build();
        PeerProxy proxy =
            new PeerProxy(
                new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                URI.create(etcd.endpoint()).getPort(),
                from -> cut.get())) {
      KV kv = writer.getKVClient();
      for (int t = 0; t < 5; t++) {
        put(kv, layout, "c" + t, table(2, 1));
      }
      try (DemandView view =
          DemandView.builder()
              .endpoints(List.of("http://127.0.0.1:" + proxy.port()))
              .prefix(layout.prefix())
              .progressInterval(Duration.ofMillis(200))
              .meterRegistry(registry)
              .build()) {
        view.addListener(seen);
        view.start();
        Map<String, String> initial = ViewRecorder.describe(view.tables());
        assertThat(initial).hasSize(5);
        put(kv, layout, "c0", table(2, 2));
        Harness.await(
            "c0's change",
            () -> view.table("c0").map(d -> d.pendingGenerations()),
            p -> p.equals(java.util.Optional.of(4L)),
            PATIENCE);

        cut.set(true);
        proxy.enforce();
        Harness.await("the view to lose etcd", view::status, s -> !s.live(), PATIENCE);
        put(kv, layout, "c1", table(2, 5));
        put(kv, layout, "c1", table(2, 6));
        put(kv, layout, "c9", table(1, 3));
        kv.delete(bytes(layout.tableKey(Keys.hex("c2")))).get(10, TimeUnit.SECONDS);
        long rev = put(kv, layout, "c3", table(2, 7));
        kv.compact(rev).get(10, TimeUnit.SECONDS);
        cut.set(false);

        Harness.await("a resync", seen::resyncs, r -> !r.isEmpty(), PATIENCE);
        Map<String, String> fresh = ViewRecorder.fresh(kv, layout);
        Harness.await(
            "the view equal to etcd",
            () -> ViewRecorder.describe(view.tables()),
            fresh::equals,
            PATIENCE);
        assertThat(seen.resyncs()).hasSize(1);
        assertThat(seen.resyncs().get(0)).isGreaterThanOrEqualTo(rev);
        assertThat(seen.replayed(initial)).isEqualTo(fresh);
        List<TableChange> atResync =
            seen.changes().stream().filter(c -> c.revision() == seen.resyncs().get(0)).toList();
        assertThat(atResync)
            .extracting(TableChange::target)
            .containsExactly("c1", "c2", "c3", "c9");
        assertThat(atResync.get(1).deleted()).isTrue();
        assertThat(atResync.get(0).old().pendingGenerations()).isEqualTo(2);
        assertThat(atResync.get(0).current().pendingGenerations()).isEqualTo(12);
        assertThat(resyncs(registry, "compacted")).isEqualTo(1);
        Harness.await("the view live again", view::status, DemandView.Status::live, PATIENCE);

        put(kv, layout, "c4", table(2, 9));
        Harness.await(
            "a change after the resync",
            () -> view.table("c4").map(d -> d.pendingGenerations()),
            p -> p.equals(java.util.Optional.of(18L)),
            PATIENCE);
      }
    }
  }

  private static Op putOp(EtcdLayout layout, String target, TableRecord r) {
    return Op.put(
        bytes(layout.tableKey(Keys.hex(target))),
        ByteSequence.from(TableJson.encode(r, 1 << 20)),
        PutOption.DEFAULT);
  }

  private static long commit(KV kv, Op... ops) throws Exception {
    return kv.txn().Then(ops).commit().get(30, TimeUnit.SECONDS).getHeader().getRevision();
  }

  /** The keys of one etcd transaction share a revision: the view applies and tells every one. */
  @Test
  void shouldHearEveryKeyOfATransactionOfARangeDeleteAndOfAMixedTransaction() throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-txn");
    ViewRecorder seen = new ViewRecorder();
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build()) {
      KV kv = writer.getKVClient();
      put(kv, layout, "keep", table(1, 1));
      try (DemandView view =
          DemandView.builder()
              .endpoints(List.of(etcd.endpoint()))
              .prefix(layout.prefix())
              .build()) {
        view.addListener(seen);
        view.start();
        Map<String, String> initial = ViewRecorder.describe(view.tables());
        long start = view.revision();
        commit(
            kv,
            putOp(layout, "r1", table(1, 2)),
            putOp(layout, "r2", table(2, 2)),
            putOp(layout, "r3", table(3, 2)));
        // every target starting with 'r': the three just written
        kv.delete(
                bytes(layout.tableRecordsPrefix() + Keys.hex("r")),
                DeleteOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS);
        long end =
            commit(
                kv,
                putOp(layout, "r1", table(1, 3)),
                Op.delete(bytes(layout.tableKey(Keys.hex("keep"))), DeleteOption.DEFAULT),
                putOp(layout, "r4", table(1, 3)));
        Harness.await("the view at revision " + end, view::revision, r -> r >= end, PATIENCE);
        List<String> written = history(writer, layout, start, end);
        assertThat(written).hasSize(9);
        assertThat(seen.changes().stream().map(c -> c.target() + "@" + c.revision()).toList())
            .as("every key of every revision, in etcd's order")
            .isEqualTo(written);
        Map<String, String> fresh = ViewRecorder.fresh(kv, layout);
        assertThat(fresh).containsOnlyKeys("r1", "r4");
        assertThat(ViewRecorder.describe(view.tables())).isEqualTo(fresh);
        assertThat(seen.replayed(initial)).isEqualTo(fresh);
      }
    }
  }

  /** Table records of about 100 KB each, {@code keys} to a transaction, {@code txns} of them. */
  private static long writeLargeRecords(KV kv, EtcdLayout layout, String base, int txns, int keys)
      throws Exception {
    long rev = 0;
    for (int t = 0; t < txns; t++) {
      Op[] ops = new Op[keys];
      for (int k = 0; k < keys; k++) {
        ops[k] = putOp(layout, base + (t * keys + k), table(LARGE_SHARDS, 1 + t));
      }
      rev = commit(kv, ops);
    }
    return rev;
  }

  /** Shards of a table record of about 100 KB. */
  private static final int LARGE_SHARDS = 500;

  /**
   * A watch resumed after a disconnect from the revision after the last one applied gets every
   * revision since in one response, here 2.4 MB over the 1 MiB its client takes: jetcd fails it
   * with RESOURCE_EXHAUSTED, every time it is resumed. The view loads a fresh snapshot instead.
   */
  @Test
  void shouldResyncInsteadOfLoopingWhenAResumedWatchsBacklogIsOverTheClientsMessageLimit()
      throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-backlog");
    ViewRecorder seen = new ViewRecorder();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicBoolean cut = new AtomicBoolean();
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build();
        PeerProxy proxy =
            new PeerProxy(
                new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                URI.create(etcd.endpoint()).getPort(),
                from -> cut.get());
        Client small =
            Client.builder()
                .endpoints("http://127.0.0.1:" + proxy.port())
                .maxInboundMessageSize(1 << 20)
                .build()) {
      KV kv = writer.getKVClient();
      int size = TableJson.encode(table(LARGE_SHARDS, 1), 1 << 20).length;
      assertThat(size).as("bytes of a large record").isBetween(60_000, 200_000);
      put(kv, layout, "a", table(1, 1));
      try (DemandView view =
          DemandView.builder()
              .client(small)
              .prefix(layout.prefix())
              .pageBytes(256 << 10)
              .progressInterval(Duration.ofMillis(200))
              .meterRegistry(registry)
              .build()) {
        view.addListener(seen);
        view.start();
        Map<String, String> initial = ViewRecorder.describe(view.tables());
        cut.set(true);
        proxy.enforce();
        Harness.await("the view to lose etcd", view::status, s -> !s.live(), PATIENCE);
        long last = writeLargeRecords(kv, layout, "b", 6, 4);
        cut.set(false);

        Harness.await(
            "a resync",
            () -> seen.resyncs().isEmpty() ? "none; watch restarts: " + restarts(registry) : "",
            String::isEmpty,
            PATIENCE);
        assertThat(seen.resyncs().get(0)).isGreaterThanOrEqualTo(last);
        Map<String, String> fresh = ViewRecorder.fresh(kv, layout);
        assertThat(ViewRecorder.describe(view.tables())).isEqualTo(fresh);
        assertThat(seen.replayed(initial)).isEqualTo(fresh);
        assertThat(resyncs(registry, "backlog")).isEqualTo(1);
        Harness.await("the view live again", view::status, DemandView.Status::live, PATIENCE);
        long next = put(kv, layout, "c", table(1, 2));
        Harness.await("a change after the resync", view::revision, r -> r >= next, PATIENCE);
        assertThat(view.table("c")).isPresent();
        assertThat(resyncs(registry, "backlog")).isEqualTo(1);
        System.out.printf(
            "DemandViewIT figures: a backlog of 24 records of %,d bytes over a 1 MiB client limit:"
                + " %d resync, watch restarts %s%n",
            size, seen.resyncs().size(), restarts(registry));
      }
    }
  }

  /**
   * While a listener holds the view's thread, what etcd sends waits in a queue bounded in bytes;
   * past the bound the view drops it and loads a fresh snapshot once the thread is free.
   */
  @Test
  void shouldResyncWhenTheQueueOverflowsItsBytesWhileAListenerIsBlocked() throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-queue");
    ViewRecorder seen = new ViewRecorder();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build();
        Client small =
            Client.builder().endpoints(etcd.endpoint()).maxInboundMessageSize(1 << 20).build()) {
      KV kv = writer.getKVClient();
      put(kv, layout, "a", table(1, 1));
      try (DemandView view =
          DemandView.builder()
              .client(small)
              .prefix(layout.prefix())
              .pageBytes(256 << 10)
              .queueBytes(512 << 10)
              .meterRegistry(registry)
              .build()) {
        view.addListener(
            c -> {
              if (c.target().equals("first")) {
                entered.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
        view.addListener(seen);
        view.start();
        Map<String, String> initial = ViewRecorder.describe(view.tables());
        long blocked = put(kv, layout, "first", table(1, 1));
        assertThat(entered.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        long last = writeLargeRecords(kv, layout, "b", 6, 4);
        // the watch heard every revision while the thread was held: the overflow has happened
        Harness.await(
            "the watch to hear revision " + last,
            () -> registry.get("demandfold.view.revision.lag").gauge().value(),
            lag -> lag >= last - blocked,
            PATIENCE);
        assertThat(registry.get("demandfold.view.queue.bytes").gauge().value())
            .as("bytes queued for the held thread")
            .isLessThanOrEqualTo(512 << 10);
        release.countDown();

        Harness.await("a resync", seen::resyncs, r -> !r.isEmpty(), PATIENCE);
        assertThat(seen.resyncs().get(0)).isGreaterThanOrEqualTo(last);
        Map<String, String> fresh = ViewRecorder.fresh(kv, layout);
        assertThat(ViewRecorder.describe(view.tables())).isEqualTo(fresh);
        assertThat(seen.replayed(initial)).isEqualTo(fresh);
        assertThat(resyncs(registry, "backlog")).isEqualTo(1);
        assertThat(
                registry.find("demandfold.view.watch.restarts").counters().stream()
                    .mapToDouble(c -> c.count())
                    .sum())
            .as("watch restarts")
            .isZero();
      }
    }
  }

  /**
   * etcd restored from a snapshot taken under a running view: the view notices (etcd answers below
   * a revision it had shown), drops what etcd no longer holds, tells its listeners and warns.
   */
  @Test
  void shouldFollowEtcdRestoredFromAnOlderSnapshot() throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-restore");
    ViewRecorder seen = new ViewRecorder();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build();
        LogCapture logs = new LogCapture()) {
      KV kv = writer.getKVClient();
      put(kv, layout, "a", table(1, 1));
      put(kv, layout, "b", table(2, 1));
      try (DemandView view =
          DemandView.builder()
              .endpoints(List.of(etcd.endpoint()))
              .prefix(layout.prefix())
              .progressInterval(Duration.ofMillis(200))
              .meterRegistry(registry)
              .build()) {
        view.addListener(seen);
        view.start();
        Path snapshot = EtcdRestore.save(etcd);
        Map<String, String> saved = ViewRecorder.fresh(kv, layout);
        put(kv, layout, "a", table(1, 5));
        long lost = put(kv, layout, "gone", table(1, 1));
        Harness.await("the view at revision " + lost, view::revision, r -> r >= lost, PATIENCE);
        assertThat(view.table("gone")).isPresent();

        EtcdRestore.restore(etcd, snapshot);
        Harness.await("a resync", seen::resyncs, r -> !r.isEmpty(), PATIENCE);
        Map<String, String> fresh = ViewRecorder.fresh(kv, layout);
        assertThat(fresh).as("etcd after the restore").isEqualTo(saved);
        assertThat(ViewRecorder.describe(view.tables())).isEqualTo(fresh);
        assertThat(view.table("gone")).isEmpty();
        assertThat(view.revision()).isLessThan(lost);
        assertThat(seen.changes().stream().filter(c -> c.revision() == seen.resyncs().get(0)))
            .extracting(c -> c.target() + (c.deleted() ? " deleted" : ""))
            .containsExactly("a", "gone deleted");
        assertThat(resyncs(registry, "etcd_rewound")).isEqualTo(1);
        assertThat(
                logs.text()
                    .lines()
                    .filter(l -> l.startsWith("WARN") && l.contains("etcd lost writes"))
                    .count())
            .as("WARN lines naming the loss")
            .isEqualTo(1);
        Harness.await("the view live again", view::status, DemandView.Status::live, PATIENCE);
        long next = put(kv, layout, "c", table(1, 2));
        Harness.await(
            "a change after the resync", () -> view.table("c"), t -> t.isPresent(), PATIENCE);
        assertThat(view.revision()).isGreaterThanOrEqualTo(next);
        assertThat(resyncs(registry, "etcd_rewound")).isEqualTo(1);
      }
    }
  }

  private static double resyncs(SimpleMeterRegistry registry, String reason) {
    return registry.get("demandfold.view.resyncs").tag("reason", reason).counter().count();
  }

  @Test
  void shouldRefuseRecordsOfANewerSchemaAndUnreadableOnesNeverReadingThemAsZero() throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-refused");
    ViewRecorder seen = new ViewRecorder();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build()) {
      KV kv = writer.getKVClient();
      put(kv, layout, "fine", table(2, 3));
      String newer = layout.tableKey(Keys.hex("newer"));
      String broken = layout.tableKey(Keys.hex("broken"));
      kv.put(bytes(newer), bytes("{\"v\":999,\"shards\":{},\"pending_generations\":0}")).get();
      kv.put(bytes(broken), bytes("{\"v\":1,\"shards\":")).get();
      String shardKey = layout.shardKey(Keys.shardKey("fine", "s-new"));
      kv.put(bytes(shardKey), bytes("{\"v\":999,\"shard\":\"s-new\"}")).get();
      kv.put(
              bytes(layout.shardKey(Keys.shardKey("fine", "s-ok"))),
              ByteSequence.from(JsonCodec.encodeRecord(Events.writer("s-ok", 4, 1, T0))))
          .get();
      try (DemandView view =
          DemandView.builder()
              .endpoints(List.of(etcd.endpoint()))
              .prefix(layout.prefix())
              .shardsOf(Set.of("fine"))
              .meterRegistry(registry)
              .build()) {
        view.addListener(seen);
        view.start();
        assertThat(view.tables()).containsOnlyKeys("fine");
        assertThat(view.table("newer")).isEmpty();
        assertThat(view.refused()).containsOnlyKeys(broken, newer, shardKey);
        assertThat(view.refused().get(newer)).isEqualTo("newer schema: unknown schema version 999");
        assertThat(view.refused().get(broken)).startsWith("unreadable table record:");
        List<ShardDemand> shards = view.shards("fine");
        assertThat(shards).extracting(ShardDemand::shard).containsExactly("s-new", "s-ok");
        assertThat(shards.get(0).record()).isNull();
        assertThat(shards.get(0).refused()).contains("unknown schema version 999");
        assertThat(shards.get(1).view().pendingGenerations()).isEqualTo(4);
        assertThat(refusedGauge(registry, "newer_schema")).isEqualTo(2);
        assertThat(refusedGauge(registry, "unreadable")).isEqualTo(1);

        // through the watch: a readable table becomes newer, the broken one readable
        kv.put(bytes(layout.tableKey(Keys.hex("fine"))), bytes("{\"v\":2,\"shards\":{}}")).get();
        put(kv, layout, "broken", table(1, 1));
        Harness.await("both changes", seen::changes, c -> c.size() == 2, PATIENCE);
        TableChange toNewer = seen.changes().get(0);
        assertThat(toNewer.target()).isEqualTo("fine");
        assertThat(toNewer.current()).isNull();
        assertThat(toNewer.deleted()).isFalse();
        assertThat(toNewer.refused()).contains("unknown schema version 2");
        assertThat(toNewer.old().pendingGenerations()).isEqualTo(6);
        assertThat(view.tables()).containsOnlyKeys("broken");
        assertThat(view.refused())
            .containsOnlyKeys(layout.tableKey(Keys.hex("fine")), newer, shardKey);

        // a target not held: its shards read on demand, refused ones said so
        kv.put(bytes(layout.shardKey(Keys.shardKey("other", "x"))), bytes("garbage")).get();
        List<ShardDemand> other = view.shards("other");
        assertThat(other).hasSize(1);
        assertThat(other.get(0).refused()).startsWith("unreadable shard record:");
      }
    }
  }

  @Test
  void shouldLoadTheReferenceScaleOf13405TablesOf10Shards() throws Exception {
    EtcdLayout layout = new EtcdLayout("/view-scale");
    int tables = 13_405;
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build()) {
      KV kv = writer.getKVClient();
      long bytes = 0;
      long t0 = System.nanoTime();
      List<Op> ops = new ArrayList<>();
      for (int t = 0; t < tables; t++) {
        byte[] value = TableJson.encode(table(10, 1 + t % 300), 1 << 20);
        bytes += value.length;
        ops.add(
            Op.put(
                bytes(layout.tableKey(Keys.hex(String.format("table-%05d", t)))),
                ByteSequence.from(value),
                PutOption.DEFAULT));
        if (ops.size() == 100 || t == tables - 1) {
          kv.txn().Then(ops.toArray(Op[]::new)).commit().get(30, TimeUnit.SECONDS);
          ops.clear();
        }
      }
      long writtenMs = (System.nanoTime() - t0) / 1_000_000;

      PrefixScan scan =
          new PrefixScan(kv, layout.tableRecordsPrefix(), 512, Duration.ofSeconds(10))
              .pageBytes(64 << 10, 8);
      int keys = 0;
      int pages = 0;
      PrefixScan.Page page;
      do {
        page = scan.next();
        keys += page.kvs().size();
        pages++;
      } while (!page.last());
      assertThat(keys).isEqualTo(tables);
      assertThat(scan.pageSize()).as("pages cut to the 64 KiB budget").isBetween(8, 64);

      int cutTo = scan.pageSize();
      scan = null;
      page = null;
      System.gc();
      System.gc();
      long heapBefore = usedHeap();
      long s0 = System.nanoTime();
      try (DemandView view =
          DemandView.builder()
              .endpoints(List.of(etcd.endpoint()))
              .prefix(layout.prefix())
              .build()) {
        view.start();
        long loadMs = (System.nanoTime() - s0) / 1_000_000;
        System.gc();
        System.gc();
        long heldMb = (usedHeap() - heapBefore) >> 20;
        assertThat(view.tables()).hasSize(tables);
        assertThat(view.table("table-00299").orElseThrow().pendingGenerations()).isEqualTo(3000);
        assertThat(view.top(3, DemandView.Order.URGENCY))
            .extracting(d -> d.urgency().wire())
            .containsOnly("critical");
        for (int i = 0; i < 5; i++) {
          view.top(20, DemandView.Order.URGENCY); // warm up
        }
        long q0 = System.nanoTime();
        for (int i = 0; i < 10; i++) {
          view.top(20, DemandView.Order.URGENCY);
        }
        long topUs = (System.nanoTime() - q0) / 10_000;
        System.out.printf(
            "DemandViewIT figures: %,d tables x 10 shards, %,d bytes of table records (written in"
                + " %,d ms); snapshot loaded in %,d ms, heap held about %d MiB; top(20, URGENCY)"
                + " in %,d us (mean of 10); a 64 KiB page budget cut pages to %d keys (%d pages)%n",
            tables, bytes, writtenMs, loadMs, heldMb, topUs, cutTo, pages);
      }
    }
  }

  private static long put(KV kv, EtcdLayout layout, String target, TableRecord r) throws Exception {
    return kv.put(
            bytes(layout.tableKey(Keys.hex(target))),
            ByteSequence.from(TableJson.encode(r, 1 << 20)))
        .get(10, TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }

  /** The largest mod revision among the described tables. */
  private static long maxRevision(Map<String, String> described) {
    return described.values().stream()
        .mapToLong(d -> Long.parseLong(d.substring(d.lastIndexOf('@') + 1)))
        .max()
        .orElse(0);
  }

  /** Every event on the table records in {@code (start, end]}, read back from etcd's history. */
  private static List<String> history(Client client, EtcdLayout layout, long start, long end)
      throws Exception {
    List<String> out = new CopyOnWriteArrayList<>();
    String prefix = layout.tableRecordsPrefix();
    try (Watch.Watcher w =
        client
            .getWatchClient()
            .watch(
                bytes(prefix),
                WatchOption.builder().isPrefix(true).withRevision(start + 1).build(),
                r -> {
                  for (WatchEvent e : r.getEvents()) {
                    String key = e.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
                    out.add(
                        Keys.unhex(key.substring(prefix.length()))
                            + "@"
                            + e.getKeyValue().getModRevision());
                  }
                })) {
      Harness.await(
          "etcd's history through revision " + end,
          () -> out.isEmpty() ? "" : out.get(out.size() - 1),
          last -> last.endsWith("@" + end),
          PATIENCE);
    }
    return List.copyOf(out);
  }

  private static String restarts(SimpleMeterRegistry registry) {
    StringBuilder sb = new StringBuilder();
    registry
        .find("demandfold.view.watch.restarts")
        .counters()
        .forEach(
            c ->
                sb.append(c.getId().getTag("reason"))
                    .append('=')
                    .append((long) c.count())
                    .append(' '));
    return sb.toString().trim();
  }

  private static double refusedGauge(SimpleMeterRegistry registry, String reason) {
    return registry.get("demandfold.view.refused.records").tag("reason", reason).gauge().value();
  }

  private static long usedHeap() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
