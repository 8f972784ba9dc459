package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.mirror.MirrorMetrics.Kind;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An etcd outage only grows the dirty set; when etcd is back, etcd converges. */
@ExtendWith(ServicesExtension.class)
class EtcdOutageIT {

  @Test
  void shouldConvergeAfterTenSecondsWithoutEtcd(Services services) throws Exception {
    try (Harness h = new Harness(services, "outage")) {
      Random rnd = new Random(5);
      List<DemandEvent> events = RandomStreams.stream(rnd, "o", 3, 20, 2000);
      Fold expected = Harness.fold(events);
      DemandfoldService s = h.start();
      h.produce(events.subList(0, 500), rnd);
      h.awaitEtcd(Harness.fold(events.subList(0, 500)));

      services.etcd().stop();
      long maxDirty = 0;
      long end = System.nanoTime() + 10_000_000_000L;
      int next = 500;
      while (System.nanoTime() < end) {
        int upTo = Math.min(events.size(), next + 150);
        h.produce(events.subList(next, upTo), rnd);
        next = upTo;
        Thread.sleep(1000);
        maxDirty = Math.max(maxDirty, s.metrics().dirtyKeys(Kind.SHARD));
      }
      h.produce(events.subList(next, events.size()), rnd);
      assertThat(maxDirty).as("dirty keys during the outage").isGreaterThan(0);
      assertThat(s.streams().state().isRunningOrRebalancing()).isTrue();

      services.etcd().restart();
      h.awaitEtcd(expected);
      Harness.await(
          () -> s.metrics().dirtyKeys(Kind.SHARD) == 0 && s.metrics().dirtyKeys(Kind.TABLE) == 0,
          Harness.PATIENCE);
      assertThat(s.metrics().dirtyKeys(Kind.SHARD)).isZero();
      assertThat(s.metrics().dirtyKeys(Kind.TABLE)).isZero();
    }
  }
}
