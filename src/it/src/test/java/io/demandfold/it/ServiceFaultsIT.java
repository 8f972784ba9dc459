package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.mirror.RecordKind;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The services under the pipeline fail mid-stream (etcd killed, etcd away while 10,000 events are
 * folded, the broker killed): the pipeline keeps running, and etcd converges to exactly the offline
 * fold.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ServiceFaultsIT {
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  @Test
  void shouldConvergeWhenEtcdIsKilledAndRestartedMidStream(Services services) throws Exception {
    try (Harness h = new Harness(services, "etcd-kill")) {
      Random rnd = new Random(11);
      FleetStream stream = FleetStream.of(rnd, 30_000, 10, 6, 500);
      DemandfoldService s = h.start();
      CompletableFuture<Void> producing = stream.produceAsync(h, rnd, 3_000);
      Harness.await("8,000 events folded", () -> folded(s), n -> n > 8_000, PATIENCE);
      services.etcd().kill();
      Thread.sleep(3_000);
      services.etcd().start();
      producing.get(3, TimeUnit.MINUTES);
      assertConverged("etcd SIGKILLed and restarted 3 s later", services, h, s, stream);
    }
  }

  /**
   * etcd stopped until the pipeline has folded 10,000 more events without it (about 10 s at the
   * stream's 1,000 events a second): folding goes on, the streams stay RUNNING at every look, the
   * dirty set grows; then etcd comes back and the dirty set drains into exactly the fold.
   */
  @Test
  void shouldKeepFoldingWithoutEtcdAndConvergeWhenItIsBack(Services services) throws Exception {
    try (Harness h = new Harness(services, "etcd-outage")) {
      Random rnd = new Random(12);
      FleetStream stream = FleetStream.of(rnd, 30_000, 10, 6, 500);
      DemandfoldService s = h.start();
      CompletableFuture<Void> producing = stream.produceAsync(h, rnd, 1_000);
      Harness.await("4,000 events folded", () -> folded(s), n -> n > 4_000, PATIENCE);
      services.etcd().stop();
      long foldedBefore = folded(s);
      long[] maxDirty = {0};
      Harness.await(
          "10,000 events folded and dirty keys waiting while etcd is down",
          () -> {
            assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
            maxDirty[0] = Math.max(maxDirty[0], s.metrics().dirtyKeys(RecordKind.SHARD));
            return "folded " + (folded(s) - foldedBefore) + ", most dirty keys " + maxDirty[0];
          },
          seen -> folded(s) - foldedBefore >= 10_000 && maxDirty[0] > 0,
          PATIENCE);
      services.etcd().start();
      producing.get(3, TimeUnit.MINUTES);
      assertConverged("etcd stopped while 10,000 events were folded", services, h, s, stream);
    }
  }

  @Test
  void shouldConvergeWhenTheBrokerIsKilledAndRestartedMidStream(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "broker-kill")) {
      Random rnd = new Random(13);
      FleetStream stream = FleetStream.of(rnd, 30_000, 10, 6, 500);
      DemandfoldService s = h.start();
      CompletableFuture<Void> producing = stream.produceAsync(h, rnd, 3_000);
      Harness.await("8,000 events folded", () -> folded(s), n -> n > 8_000, PATIENCE);
      services.broker().kill();
      Thread.sleep(2_000);
      services.broker().start();
      producing.get(3, TimeUnit.MINUTES);
      assertConverged("broker SIGKILLed and restarted 2 s later", services, h, s, stream);
    }
  }

  private static long folded(DemandfoldService s) {
    return s.metrics().foldedCounts().total();
  }

  private static void assertConverged(
      String fault, Services services, Harness h, DemandfoldService s, FleetStream stream)
      throws Exception {
    Faults.Outcome outcome = Faults.Outcome.await(services, h, stream, PATIENCE);
    System.out.printf(
        "ServiceFaultsIT figures: fault=%s, %s, streams %s%n",
        fault, outcome.figures(), s.streams().state());
    outcome.assertExact();
    assertThat(s.failure()).isNull();
    assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
    Harness.awaitNothingDirty(s, PATIENCE);
  }
}
