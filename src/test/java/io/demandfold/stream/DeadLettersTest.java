package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

/** Dead-letter records always fit the DLQ topic: cut value first, then key, never failing. */
class DeadLettersTest {
  private final PipelineMetrics metrics = new PipelineMetrics(new SimpleMeterRegistry());

  private DeadLetters deadLetters(Map<String, Object> limits) {
    DeadLetters d = new DeadLetters();
    Map<String, Object> configs = new java.util.HashMap<>(limits);
    configs.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, "dlq");
    configs.put(PipelineMetrics.CONFIG_KEY, metrics);
    d.configure(configs);
    return d;
  }

  private static ProducerRecord<byte[], byte[]> deadLetter(
      DeadLetters d, byte[] key, byte[] value) {
    InvalidEventException e = new InvalidEventException(Reason.INVALID_FIELD, "too many");
    return d.deadLetter(context(key, value), e, e).get(0);
  }

  @Test
  void shouldKeepARecordThatFitsWhole() {
    DeadLetters d = deadLetters(Map.of());
    byte[] value = new byte[100_000];
    ProducerRecord<byte[], byte[]> r = deadLetter(d, "k/s".getBytes(), value);
    assertThat(r.value()).isEqualTo(value);
    assertThat(r.headers().lastHeader("demandfold.dlq.truncated")).isNull();
    assertThat(metrics.dlqTruncated()).isZero();
  }

  @Test
  void shouldCutTheValueToTheSmallerOfTheProducerAndTopicLimits() {
    DeadLetters d =
        deadLetters(
            Map.of(
                "producer.max.request.size",
                "8388608",
                DlqDeserializationHandler.DLQ_MAX_MESSAGE_BYTES,
                4096));
    byte[] value = new byte[10_000];
    Arrays.fill(value, (byte) 'v');
    ProducerRecord<byte[], byte[]> r = deadLetter(d, "k/s".getBytes(), value);
    assertThat(DeadLetters.sizeUpperBound(r))
        .isLessThanOrEqualTo(4096 - DeadLetters.SLACK_BYTES + 64);
    assertThat(value).startsWith(r.value());
    assertThat(r.key()).isEqualTo("k/s".getBytes());
    assertThat(
            new String(
                r.headers().lastHeader("demandfold.dlq.truncated").value(), StandardCharsets.UTF_8))
        .isEqualTo("key=3 value=10000");
    assertThat(r.headers().lastHeader("demandfold.dlq.reason")).isNotNull();
    assertThat(metrics.dlqTruncated()).isEqualTo(1);
  }

  @Test
  void shouldCutTheKeyTooWhenTheKeyAloneIsTooLarge() {
    DeadLetters d = deadLetters(Map.of("max.request.size", 4096));
    byte[] key = new byte[20_000];
    ProducerRecord<byte[], byte[]> r = deadLetter(d, key, new byte[50]);
    assertThat(r.value()).isEmpty();
    assertThat(r.key().length).isLessThan(4096).isGreaterThan(1024);
    assertThat(DeadLetters.sizeUpperBound(r)).isLessThanOrEqualTo(4096);
  }

  private static ErrorHandlerContext context(byte[] key, byte[] value) {
    return new ErrorHandlerContext() {
      @Override
      public String topic() {
        return "events";
      }

      @Override
      public int partition() {
        return 0;
      }

      @Override
      public long offset() {
        return 7;
      }

      @Override
      public Headers headers() {
        return new RecordHeaders();
      }

      @Override
      public String processorNodeId() {
        return "events-source";
      }

      @Override
      public TaskId taskId() {
        return new TaskId(0, 0);
      }

      @Override
      public long timestamp() {
        return 0;
      }

      @Override
      public byte[] sourceRawKey() {
        return key;
      }

      @Override
      public byte[] sourceRawValue() {
        return value;
      }
    };
  }
}
