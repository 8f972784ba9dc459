package io.demandfold.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.client.DemandPublisher.Result;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Source;
import io.demandfold.core.codec.AvroCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The publisher's bound, outcomes and counts against Kafka's {@link MockProducer}, which
 * acknowledges or fails each send when the test says so. PublisherIT runs it against a broker.
 */
class DemandPublisherTest {
  private final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
  private DemandPublisher publisher;

  @AfterEach
  void close() {
    if (publisher != null) {
      publisher.close();
    }
  }

  private DemandPublisher publisher(int maxInFlight) {
    publisher = DemandPublisher.builder(producer).topic("events").maxInFlight(maxInFlight).build();
    return publisher;
  }

  private boolean flushed(long seq) {
    return publisher.writerFlushed("orders", "s1", seq, seq * 100, 1, 1000 + seq);
  }

  /** Waits until the sender thread has done what {@code done} checks. */
  private static void await(BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not done within 10 s");
      }
      Thread.sleep(5);
    }
  }

  private void awaitSends(int n) throws InterruptedException {
    await(() -> producer.history().size() == n);
  }

  @Test
  void shouldSendTheEventUnderItsKeyAndCountItSentOnceAcknowledged() throws Exception {
    publisher(10);
    assertThat(flushed(5)).isTrue();
    awaitSends(1);

    ProducerRecord<byte[], byte[]> sent = producer.history().get(0);
    assertThat(sent.topic()).isEqualTo("events");
    assertThat(new String(sent.key(), StandardCharsets.UTF_8)).isEqualTo("6f7264657273/s1");
    DemandEvent e = AvroCodec.decodeEvent(sent.value());
    assertThat(e.target()).isEqualTo("orders");
    assertThat(e.record().sealedThrough()).isEqualTo(5);
    assertThat(publisher.count(Source.WRITER, Result.SENT)).isZero();
    assertThat(publisher.flush(Duration.ofMillis(50))).as("unacknowledged").isFalse();

    assertThat(producer.completeNext()).isTrue();
    assertThat(publisher.count(Source.WRITER, Result.SENT)).isEqualTo(1);
    assertThat(publisher.flush(Duration.ofSeconds(1))).isTrue();
  }

  @Test
  void shouldDropAndCountAnEventThatFindsEverySlotTakenUntilOneIsAcknowledged() throws Exception {
    publisher(2);
    assertThat(flushed(1)).isTrue();
    assertThat(flushed(2)).isTrue();
    assertThat(flushed(3)).as("both slots taken").isFalse();
    assertThat(publisher.count(Source.WRITER, Result.DROPPED)).isEqualTo(1);
    awaitSends(2);

    assertThat(producer.completeNext()).isTrue();
    assertThat(flushed(4)).as("a slot freed by the acknowledgement").isTrue();
    assertThat(flushed(5)).isFalse();
    assertThat(publisher.count(Source.WRITER, Result.DROPPED)).isEqualTo(2);
    awaitSends(3);
    assertThat(producer.history())
        .extracting(r -> AvroCodec.decodeEvent(r.value()).record().sealedThrough())
        .containsExactly(1L, 2L, 4L);
  }

  @Test
  void shouldCountADeliveryTimeoutApartFromOtherFailuresAndFreeTheirSlots() throws Exception {
    publisher(2);
    assertThat(flushed(1)).isTrue();
    assertThat(publisher.executorMerged("orders", "s1", 1, 1, 2000)).isTrue();
    awaitSends(2);

    assertThat(producer.errorNext(new TimeoutException("expired in the accumulator"))).isTrue();
    assertThat(producer.errorNext(new KafkaException("record too large"))).isTrue();

    assertThat(publisher.count(Source.WRITER, Result.TIMEOUT)).isEqualTo(1);
    assertThat(publisher.count(Source.WRITER, Result.FAILED)).isZero();
    assertThat(publisher.count(Source.EXECUTOR, Result.FAILED)).isEqualTo(1);
    assertThat(publisher.count(Source.EXECUTOR, Result.SENT)).isZero();
    assertThat(publisher.flush(Duration.ofSeconds(1))).as("both slots free again").isTrue();
  }

  @Test
  void shouldCountASendThatThrowsAndFreeItsSlot() throws Exception {
    publisher(1);
    producer.sendException = new TimeoutException("no metadata within max.block.ms");
    assertThat(flushed(1)).isTrue();
    await(() -> publisher.count(Source.WRITER, Result.TIMEOUT) == 1);
    assertThat(publisher.flush(Duration.ofSeconds(1))).as("the slot is given back").isTrue();

    producer.sendException = new KafkaException("closed");
    assertThat(flushed(2)).isTrue();
    await(() -> publisher.count(Source.WRITER, Result.FAILED) == 1);
    assertThat(publisher.flush(Duration.ofSeconds(1))).isTrue();
    assertThat(producer.history()).isEmpty();
  }

  @Test
  void shouldNotSendAnInvalidEvent() {
    publisher(10);
    assertThat(publisher.writerFlushed("orders", "", 1, 1, 1, 1)).as("empty shard").isFalse();
    assertThat(publisher.count(Source.WRITER, Result.DROPPED)).isZero();
    assertThat(producer.history()).isEmpty();
  }

  @Test
  void shouldCloseTheProducerAndDropWhatComesAfter() {
    publisher(10);
    publisher.close();
    assertThat(producer.closed()).isTrue();
    assertThat(flushed(1)).isFalse();
    assertThat(publisher.count(Source.WRITER, Result.DROPPED)).isEqualTo(1);
  }

  @Test
  void shouldRejectAMissingProducerOrBrokerAndAShortDeliveryTimeout() {
    assertThatThrownBy(() -> DemandPublisher.builder((Producer<byte[], byte[]>) null))
        .hasMessageContaining("producer");
    assertThatThrownBy(() -> DemandPublisher.builder(" ")).hasMessageContaining("bootstrapServers");
    assertThatThrownBy(
            () -> DemandPublisher.builder(producer).deliveryTimeout(Duration.ofSeconds(1)))
        .hasMessageContaining("deliveryTimeout");
  }
}
