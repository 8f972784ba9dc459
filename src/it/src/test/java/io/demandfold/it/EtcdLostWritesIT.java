package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.ops.Audit;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * etcd loses writes it acknowledged (restored from an older snapshot, or started afresh on a wiped
 * data directory): the mirror notices (etcd's revision went down), forgets what it knew, and writes
 * every record again, those that never change again too, so that etcd equals the fold of the log
 * once more; with no later event at all, its probe of an idle etcd notices. Three members that
 * answer in any order, with their leader killed, are no loss.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class EtcdLostWritesIT {

  @Test
  void shouldWriteEveryRecordAgainAfterEtcdIsRestoredFromAnOlderSnapshot(Services services)
      throws Exception {
    assumeTrue(services.isLocal(), "restores the etcd data directory of a local etcd");
    try (Harness h = new Harness(services, "lost");
        LogCapture logs = new LogCapture()) {
      Random rnd = new Random(8);
      List<DemandEvent> early = RandomStreams.stream(rnd, "l", 3, 30, 1500);
      DemandfoldService s = h.start();
      h.produce(early.subList(0, 500), rnd);
      h.awaitEtcd(Harness.fold(early.subList(0, 500)));

      Path snapshot = EtcdRestore.save(services.etcd());
      long snapshotRevision = revision(services);

      // every key changes after the snapshot, and every change is acknowledged (and remembered)
      h.produce(early.subList(500, early.size()), rnd);
      Fold before = Harness.fold(early);
      h.awaitEtcd(before);
      Harness.awaitNothingDirty(s, Harness.PATIENCE);
      long lostRevision = revision(services);

      EtcdRestore.restore(services.etcd(), snapshot);
      long restoredRevision = revision(services);
      assertThat(restoredRevision).as("revision after the restore").isLessThan(lostRevision);
      assertThat(h.etcdState())
          .as("etcd lost acknowledged writes")
          .isNotEqualTo(Harness.expectedEtcd(before, h.layout()));

      // later events change only keys of another table: the rest must be written again anyway
      List<DemandEvent> late = RandomStreams.stream(rnd, "m", 1, 4, 40);
      h.produce(late, rnd);
      List<DemandEvent> all = new ArrayList<>(early);
      all.addAll(late);
      long t0 = System.nanoTime();
      h.awaitEtcd(Harness.fold(all));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      Harness.awaitNothingDirty(s, Harness.PATIENCE);

      long rewinds = s.metrics().mirror().rewinds();
      long warnings = warnings(logs);
      System.out.printf(
          "EtcdLostWritesIT figures: snapshot at revision %d, restored over revision %d (now %d);"
              + " etcd equalled the fold %d ms after the later events were produced; %d rewind(s)"
              + " counted, %d warning(s)%n",
          snapshotRevision, lostRevision, restoredRevision, ms, rewinds, warnings);
      assertThat(rewinds).as("demandfold_mirror_etcd_rewound_total").isEqualTo(1);
      assertThat(warnings).as("WARN lines naming the loss").isEqualTo(1);
    }
  }

  @Test
  void shouldWriteEveryRecordAgainIntoAWipedEtcdWithoutAnyLaterEvent(Services services)
      throws Exception {
    assumeTrue(services.isLocal(), "wipes the etcd data directory of a local etcd");
    try (Harness h = new Harness(services, "wiped");
        LogCapture logs = new LogCapture()) {
      Random rnd = new Random(9);
      List<DemandEvent> events = RandomStreams.stream(rnd, "w", 3, 30, 1000);
      DemandfoldService s = h.start();
      h.produce(events, rnd);
      Fold fold = Harness.fold(events);
      h.awaitEtcd(fold);
      Harness.awaitNothingDirty(s, Harness.PATIENCE);
      long lostRevision = revision(services);

      services.etcd().stop();
      EtcdRestore.deleteData(services.etcd());
      services.etcd().start();
      long t0 = System.nanoTime();
      long freshRevision = revision(services);
      assertThat(freshRevision).as("revision of the fresh etcd").isLessThan(lostRevision);
      assertThat(h.etcdState()).as("etcd lost every write").isEmpty();

      h.awaitEtcd(fold);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      Harness.awaitNothingDirty(s, Harness.PATIENCE);
      long rewinds = s.metrics().mirror().rewinds();
      System.out.printf(
          "EtcdLostWritesIT figures: etcd wiped over revision %d (now %d), no later event; etcd"
              + " equalled the fold %d ms after it was up again; %d rewind(s) counted, %d"
              + " warning(s)%n",
          lostRevision, freshRevision, ms, rewinds, warnings(logs));
      assertThat(rewinds).as("demandfold_mirror_etcd_rewound_total").isEqualTo(1);
      assertThat(warnings(logs)).as("WARN lines naming the loss").isEqualTo(1);
    }
  }

  @Test
  void shouldNoticeNoLossWhileThreeMembersAnswerInAnyOrderAndTheLeaderIsKilled(Services services)
      throws Exception {
    try (EtcdCluster etcd = EtcdCluster.of(3).startAll();
        Harness h = new Harness(services, "members");
        Client reader = Client.builder().endpoints(etcd.endpoints().split(",")).build();
        LogCapture logs = new LogCapture()) {
      Random rnd = new Random(10);
      List<DemandEvent> events = RandomStreams.stream(rnd, "k", 3, 30, 3000);
      int third = events.size() / 3;
      // small batches: many calls in flight at once, spread over the three members
      DemandfoldService s =
          h.start(
              Map.of(
                  DemandfoldConfig.ETCD_ENDPOINTS,
                  etcd.endpoints(),
                  DemandfoldConfig.MIRROR_BATCH_KEYS,
                  "2"));
      h.produce(events.subList(0, third), rnd);
      awaitIdentical(reader, h, events.subList(0, third));

      int leader = etcd.leader(reader);
      h.produce(events.subList(third, 2 * third), rnd);
      etcd.kill(leader);
      h.produce(events.subList(2 * third, events.size()), rnd);
      awaitIdentical(reader, h, events);
      etcd.start(leader);
      List<DemandEvent> all = new ArrayList<>(events);
      all.addAll(RandomStreams.stream(rnd, "k2", 2, 20, 600));
      h.produce(all.subList(events.size(), all.size()), rnd);
      awaitIdentical(reader, h, all);

      long requests = s.metrics().mirror().etcdRequests();
      System.out.printf(
          "EtcdLostWritesIT figures: %d mirror requests over three members, leader e%d killed and"
              + " rejoined; %d loss(es) noticed%n",
          requests, leader + 1, s.metrics().mirror().rewinds());
      assertThat(s.metrics().mirror().rewinds()).as("losses noticed").isZero();
      assertThat(warnings(logs)).as("WARN lines naming a loss").isZero();
    }
  }

  private static void awaitIdentical(Client reader, Harness h, List<DemandEvent> events)
      throws Exception {
    Audit.Report r =
        Faults.awaitIdentical(
            reader.getKVClient(), h.layout(), Harness.fold(events), Harness.PATIENCE);
    assertThat(r.divergences()).as("etcd against the fold of %d events", events.size()).isEmpty();
  }

  private static long warnings(LogCapture logs) {
    return logs.text()
        .lines()
        .filter(l -> l.startsWith("WARN") && l.contains("etcd lost writes"))
        .count();
  }

  /** The store's revision now, from the header of a read. */
  private static long revision(Services services) throws Exception {
    return services
        .etcdClient()
        .getKVClient()
        .get(
            ByteSequence.from("/", StandardCharsets.UTF_8),
            GetOption.builder().withCountOnly(true).build())
        .get(10, TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }
}
