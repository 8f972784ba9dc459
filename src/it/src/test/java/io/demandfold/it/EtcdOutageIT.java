package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.mirror.RecordKind;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** An etcd outage only grows the dirty set; when etcd is back, etcd converges. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class EtcdOutageIT {

  /** Active tasks of this instance: partitions of every sub-topology it runs. */
  private static int tasks(DemandfoldService s) {
    return s.streams().metadataForLocalThreads().stream()
        .mapToInt(t -> t.activeTasks().size())
        .sum();
  }

  private static void signal(long pid, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertThat(kill.waitFor()).as("kill -%s %d", signal, pid).isZero();
  }

  @Test
  void shouldConvergeAfterAMinuteWithoutEtcdWithBoundedCallsInFlight(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "outage")) {
      Random rnd = new Random(5);
      List<DemandEvent> events = RandomStreams.stream(rnd, "o", 3, 20, 2000);
      Fold expected = Harness.fold(events);
      // one call in flight per task and kind, each bounded by a second: every retry of a call that
      // gRPC kept waiting would show as one more call in flight
      DemandfoldService s =
          h.start(Map.of("mirror.concurrency", "1", "etcd.request.timeout.ms", "1000"));
      h.produce(events.subList(0, 500), rnd);
      h.awaitEtcd(Harness.fold(events.subList(0, 500)));

      // 30 s with etcd stopped (connections refused), then 30 s with etcd hung (SIGSTOP: the
      // connection stays open and nothing answers)
      long maxDirty = 0;
      int maxInFlight = 0;
      int next = 500;
      for (String outage : List.of("stopped", "hung")) {
        if (outage.equals("stopped")) {
          services.etcd().stop();
        } else {
          services.etcd().restart();
          signal(services.etcd().pid(), "STOP");
        }
        long end = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < end) {
          int upTo = Math.min(events.size(), next + 25);
          h.produce(events.subList(next, upTo), rnd);
          next = upTo;
          Thread.sleep(1000);
          maxDirty = Math.max(maxDirty, s.metrics().dirtyKeys(RecordKind.SHARD));
          maxInFlight = Math.max(maxInFlight, s.metrics().mirror().callsInFlight());
        }
      }
      signal(services.etcd().pid(), "CONT");
      h.produce(events.subList(next, events.size()), rnd);
      assertThat(maxDirty).as("dirty keys during the outage").isGreaterThan(0);
      assertThat(s.streams().state().isRunningOrRebalancing()).isTrue();
      // calls wait for nothing while etcd is away: they fail, and the drain backs off; calls
      // that waited in gRPC for the connection would pile up with every retry of the outage
      int bound = 2 * s.config().getInt(DemandfoldConfig.MIRROR_CONCURRENCY) * tasks(s) + 2;
      System.out.printf(
          "EtcdOutageIT figures: at most %d etcd calls in flight during 60 s without etcd"
              + " (bound %d), %d dirty shard keys%n",
          maxInFlight, bound, maxDirty);
      assertThat(maxInFlight).as("etcd calls in flight during 60 s without etcd").isLessThan(bound);

      h.awaitEtcd(expected);
      Harness.awaitNothingDirty(s, Harness.PATIENCE);
      assertThat(s.metrics().mirror().rewinds())
          .as("etcd stopped, restarted and hung lost no write: no loss noticed")
          .isZero();
      Harness.awaitEquals(
          "no etcd call in flight",
          () -> s.metrics().mirror().callsInFlight(),
          0,
          Harness.PATIENCE);
    }
  }
}
