package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Restarts and fail-over lose nothing: the final etcd state is the fold of every event. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RestartIT {

  @Test
  void shouldEndExactAfterARestartMidStreamFromAnEmptyStateDirectory(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "restart")) {
      Random rnd = new Random(3);
      List<DemandEvent> events = RandomStreams.stream(rnd, "r", 3, 20, 3000);
      Fold expected = Harness.fold(events);
      DemandfoldService first = h.start();
      h.produce(events.subList(0, 1500), rnd);
      Harness.await(
          "the first instance to fold 100 events",
          () -> first.metrics().foldedCounts().changed(),
          n -> n > 100,
          Harness.PATIENCE);
      h.stop(first);

      h.start(Map.of("kafka.state.dir", Files.createTempDirectory("demandfold-state-").toString()));
      h.produce(events.subList(1500, events.size()), rnd);
      h.awaitEtcd(expected);
    }
  }

  @Test
  void shouldEndExactWhenASecondInstanceTakesOver(Services services) throws Exception {
    try (Harness h = new Harness(services, "takeover")) {
      Random rnd = new Random(4);
      List<DemandEvent> events = RandomStreams.stream(rnd, "t", 3, 20, 3000);
      Fold expected = Harness.fold(events);
      DemandfoldService a = h.start();
      h.produce(events.subList(0, 1000), rnd);
      DemandfoldService b = h.startAnother();
      h.produce(events.subList(1000, 2000), rnd);
      Harness.await(
          "the second instance to fold an event",
          () -> b.metrics().foldedCounts().total(),
          n -> n > 0,
          Harness.PATIENCE);
      h.stop(a);
      h.produce(events.subList(2000, events.size()), rnd);
      h.awaitEtcd(expected);
      assertThat(b.metrics().foldedCounts().changed()).isGreaterThan(0);
    }
  }

  @Test
  void shouldMirrorWhatAnInstanceWithoutMirrorFoldedOnceAnInstanceWithMirrorTakesOver(
      Services services) throws Exception {
    try (Harness h = new Harness(services, "rolling")) {
      Random rnd = new Random(6);
      List<DemandEvent> events = RandomStreams.stream(rnd, "m", 3, 20, 1500);
      Fold expected = Harness.fold(events);
      DemandfoldService without =
          h.start(Map.of("mirror.enabled", "false", "mirror.tables", "false"));
      h.produce(events, rnd);
      Harness.await(
          "every event folded without the mirror",
          () -> without.metrics().foldedCounts().total(),
          n -> n >= events.size(),
          Harness.PATIENCE);
      // the records were emitted downstream and committed, etcd has none of them yet
      Harness.await(
          "a committed record in " + h.name + ".shard-records",
          () -> h.latest(h.name + ".shard-records").size(),
          n -> n > 0,
          Harness.PATIENCE);
      assertThat(h.etcdState()).isEmpty();
      h.stop(without);

      h.start();
      h.awaitEtcd(expected);
    }
  }
}
