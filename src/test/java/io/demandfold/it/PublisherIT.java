package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.client.DemandPublisher;
import io.demandfold.client.DemandPublisher.Result;
import io.demandfold.client.DemandPublisher.ScanWatermarks;
import io.demandfold.client.Encoding;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The producer library against a real broker, and against none. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PublisherIT {

  @Test
  void shouldPublishEverySourceSoThatThePipelineFoldsIt(Services services) throws Exception {
    try (Harness h = new Harness(services, "publisher")) {
      h.start();
      Fold expected = new Fold();
      try (DemandPublisher p =
          DemandPublisher.builder(services.bootstrapServers())
              .topic(h.eventsTopic)
              .encoding(Encoding.JSON)
              .build()) {
        SealedTimes times = SealedTimes.of(Map.of(1L, 1000L, 2L, 2000L));
        assertThat(p.writerFlushed("orders", "s1", 3, 3000, 1, 3000, times)).isTrue();
        assertThat(p.executorMerged("orders", "s1", 1, 1, 4000)).isTrue();
        Map<String, ScanWatermarks> scan = new LinkedHashMap<>();
        scan.put("s1", new ScanWatermarks(2, 2000, 1L, 1));
        scan.put("s2", new ScanWatermarks(9, 9000, null, 2));
        assertThat(p.scan("orders", scan, 5000)).isEqualTo(2);
        assertThat(p.writerFlushed("orders", "", 1, 1, 1, 1)).as("invalid: empty shard").isFalse();
        assertThat(p.flush(Duration.ofSeconds(30))).isTrue();
        assertThat(p.count(Source.WRITER, Result.SENT)).isEqualTo(1);
        assertThat(p.count(Source.EXECUTOR, Result.SENT)).isEqualTo(1);
        assertThat(p.count(Source.SCAN, Result.SENT))
            .as(
                "scan: failed %d, timeout %d, dropped %d",
                p.count(Source.SCAN, Result.FAILED),
                p.count(Source.SCAN, Result.TIMEOUT),
                p.count(Source.SCAN, Result.DROPPED))
            .isEqualTo(2);
      }
      expected.add(
          new DemandEvent(
              "orders",
              Events.writer("s1", 3, 1, 3000).toBuilder()
                  .sealedBytesThrough(3000)
                  .sealedTimes(SealedTimes.of(Map.of(1L, 1000L, 2L, 2000L)))
                  .build()));
      expected.add(new DemandEvent("orders", Events.executor("s1", 1, 1, 1, 4000)));
      expected.add(
          new DemandEvent(
              "orders",
              Events.scan("s1", 2, 1, 1, 5000).toBuilder().sealedBytesThrough(2000).build()));
      expected.add(
          new DemandEvent(
              "orders",
              ShardRecord.builder("s2")
                  .sealedThrough(9)
                  .sealedBytesThrough(9000)
                  .writerEpoch(2)
                  .flushedAtMs(5000)
                  .source(Source.SCAN)
                  .build()));
      h.awaitEtcd(expected);
    }
  }

  @Test
  void shouldDropAndCountInsteadOfBlockingWhenTheBoundIsFull() throws Exception {
    int deadPort;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      deadPort = s.getLocalPort();
    }
    long slowest = 0;
    int accepted = 0;
    try (DemandPublisher p =
        DemandPublisher.builder("127.0.0.1:" + deadPort)
            .maxInFlight(5)
            .deliveryTimeout(Duration.ofSeconds(5))
            .build()) {
      for (int i = 0; i < 50; i++) {
        long t0 = System.nanoTime();
        boolean ok = p.writerFlushed("orders", "s1", i + 1, 0, 1, i);
        slowest = Math.max(slowest, System.nanoTime() - t0);
        accepted += ok ? 1 : 0;
      }
      assertThat(accepted).isEqualTo(5);
      assertThat(p.count(Source.WRITER, Result.DROPPED)).isEqualTo(45);
      // a call that blocked would wait for the 5 s delivery timeout
      assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofMillis(2500));
      Harness.awaitEquals(
          "5 sends timed out",
          () -> p.count(Source.WRITER, Result.TIMEOUT),
          5L,
          Duration.ofSeconds(60));
      assertThat(p.count(Source.WRITER, Result.SENT)).isZero();
      assertThat(p.writerFlushed("orders", "s1", 99, 0, 1, 99)).as("slots free again").isTrue();
    }
  }

  @Test
  void shouldRejectBadBuilderArgumentsByName() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DemandPublisher.builder("127.0.0.1:1").maxInFlight(0))
        .hasMessageContaining("maxInFlight");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DemandPublisher.builder("127.0.0.1:1").deliveryTimeout(Duration.ofMillis(10)))
        .hasMessageContaining("deliveryTimeout");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DemandPublisher.builder(" "))
        .hasMessageContaining("bootstrapServers");
  }
}
