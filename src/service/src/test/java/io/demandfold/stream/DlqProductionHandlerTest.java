package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.Response;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.Result;
import org.junit.jupiter.api.Test;

/** Only a dead-letter record refused for good is dropped; everything else as Kafka's default. */
class DlqProductionHandlerTest {
  private final PipelineMetrics metrics = new PipelineMetrics(new SimpleMeterRegistry());

  private DlqProductionHandler handler() {
    DlqProductionHandler h = new DlqProductionHandler();
    h.configure(
        Map.of(
            StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG,
            "dlq",
            PipelineMetrics.CONFIG_KEY,
            metrics));
    return h;
  }

  private static ProducerRecord<byte[], byte[]> record(String topic) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(topic, "k/s".getBytes(), new byte[2000]);
    r.headers().add("__streams.errors.topic", "events".getBytes(StandardCharsets.UTF_8));
    r.headers().add("__streams.errors.partition", "2".getBytes(StandardCharsets.UTF_8));
    r.headers().add("__streams.errors.offset", "41".getBytes(StandardCharsets.UTF_8));
    return r;
  }

  @Test
  void shouldCountAndDropADeadLetterRecordTheBrokerRefuses() {
    Response r =
        handler().handleError(null, record("dlq"), new RecordTooLargeException("too large"));
    assertThat(r.result()).isEqualTo(Result.RESUME);
    assertThat(r.deadLetterQueueRecords()).isEmpty();
    assertThat(metrics.dlqDropped()).isEqualTo(1);
  }

  @Test
  void shouldRetryADeadLetterRecordOnARetriableError() {
    Response r =
        handler().handleError(null, record("dlq"), new NotLeaderOrFollowerException("moved"));
    assertThat(r.result()).isEqualTo(Result.RETRY);
    assertThat(metrics.dlqDropped()).isZero();
  }

  @Test
  void shouldFailOnAnyOtherRecordAsKafkaDoes() {
    Response r =
        handler()
            .handleError(
                DeadLettersTest.context("k/s".getBytes(), new byte[1], new RecordHeaders()),
                record("shard-records"),
                new RecordTooLargeException("x"));
    assertThat(r.result()).isEqualTo(Result.FAIL);
    assertThat(metrics.dlqDropped()).isZero();
  }
}
