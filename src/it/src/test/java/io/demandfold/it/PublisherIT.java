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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
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

  /**
   * "Never blocks", counted rather than timed: a real producer whose {@code send} is held until the
   * test lets it go takes the first event and holds the publisher's sender in it. Fifty calls all
   * return while it is held (on another thread, which the test waits for: a call that waited for
   * the producer would never return), and nothing has completed by then: five accepted (the bound),
   * forty-five dropped. Let go, the five are sent and the slots are free again.
   */
  @Test
  void shouldReturnFromEveryCallWhileTheProducerIsHeld(Services services) throws Exception {
    String topic = services.uniqueName("publisher-held");
    services.createTopic(topic, 1);
    CountDownLatch inSend = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    AtomicInteger sends = new AtomicInteger();
    KafkaProducer<byte[], byte[]> held =
        new KafkaProducer<>(services.producerProps()) {
          @Override
          public Future<RecordMetadata> send(
              ProducerRecord<byte[], byte[]> record, Callback callback) {
            sends.incrementAndGet();
            inSend.countDown();
            try {
              letGo.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return super.send(record, callback);
          }
        };
    try (DemandPublisher p = DemandPublisher.builder(held).topic(topic).maxInFlight(5).build()) {
      try {
        CompletableFuture<Integer> calls =
            CompletableFuture.supplyAsync(
                () -> {
                  int accepted = 0;
                  for (int i = 0; i < 50; i++) {
                    accepted += p.writerFlushed("orders", "s1", i + 1, 0, 1, i) ? 1 : 0;
                  }
                  return accepted;
                });
        Harness.await(
            "fifty calls to return while the producer's send is held",
            calls::isDone,
            done -> done,
            Harness.PATIENCE);
        assertThat(inSend.await(Harness.PATIENCE.toSeconds(), TimeUnit.SECONDS))
            .as("the sender is in the held send")
            .isTrue();
        assertThat(calls.join()).as("accepted").isEqualTo(5);
        assertThat(p.count(Source.WRITER, Result.DROPPED)).isEqualTo(45);
        assertThat(sends).as("sends begun: the first holds the sender").hasValue(1);
        assertThat(
                p.count(Source.WRITER, Result.SENT)
                    + p.count(Source.WRITER, Result.FAILED)
                    + p.count(Source.WRITER, Result.TIMEOUT))
            .as("events completed while the producer is held")
            .isZero();
      } finally {
        letGo.countDown();
      }
      assertThat(p.flush(Harness.PATIENCE)).isTrue();
      assertThat(p.count(Source.WRITER, Result.SENT)).isEqualTo(5);
      assertThat(p.writerFlushed("orders", "s1", 99, 0, 1, 99)).as("slots free again").isTrue();
      assertThat(p.flush(Harness.PATIENCE)).isTrue();
      assertThat(p.count(Source.WRITER, Result.SENT)).isEqualTo(6);
    }
    assertThat(services.readAll(topic)).hasSize(6);
  }

  /**
   * Against no broker: what the bound accepted ends as {@code timeout} (the producer's delivery
   * timeout), the rest dropped; nothing is sent.
   */
  @Test
  void shouldDropAndCountInsteadOfBlockingWhenTheBoundIsFull() throws Exception {
    int deadPort;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      deadPort = s.getLocalPort();
    }
    int accepted = 0;
    try (DemandPublisher p =
        DemandPublisher.builder("127.0.0.1:" + deadPort)
            .maxInFlight(5)
            .deliveryTimeout(Duration.ofSeconds(5))
            .build()) {
      for (int i = 0; i < 50; i++) {
        accepted += p.writerFlushed("orders", "s1", i + 1, 0, 1, i) ? 1 : 0;
      }
      // five, unless a send timed out (5 s) before the fifty calls were made, freeing a slot
      assertThat(accepted).isGreaterThanOrEqualTo(5);
      assertThat(p.count(Source.WRITER, Result.DROPPED)).isEqualTo(50 - accepted);
      Harness.awaitEquals(
          accepted + " sends timed out",
          () -> p.count(Source.WRITER, Result.TIMEOUT),
          (long) accepted,
          Duration.ofSeconds(60));
      assertThat(p.count(Source.WRITER, Result.SENT)).isZero();
      assertThat(p.count(Source.WRITER, Result.FAILED)).isZero();
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
