package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter records always fit the DLQ topic: the original headers are dropped first (largest
 * first), then the value is cut, then the key; never failing.
 */
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
    return deadLetter(d, key, value, new RecordHeaders());
  }

  private static ProducerRecord<byte[], byte[]> deadLetter(
      DeadLetters d, byte[] key, byte[] value, Headers headers) {
    InvalidEventException e = new InvalidEventException(Reason.INVALID_FIELD, "too many");
    return d.deadLetter(context(key, value, headers), e, e).get(0);
  }

  private static String header(ProducerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
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

  @Test
  void shouldKeepTheOriginalHeadersOfARecordThatFits() {
    DeadLetters d = deadLetters(Map.of());
    Headers headers = new RecordHeaders().add("trace-id", "t-1".getBytes());
    ProducerRecord<byte[], byte[]> r = deadLetter(d, "k/s".getBytes(), new byte[10], headers);
    assertThat(header(r, "trace-id")).isEqualTo("t-1");
    assertThat(r.headers().lastHeader("demandfold.dlq.headers.dropped")).isNull();
    assertThat(metrics.dlqTruncated()).isZero();
  }

  @Test
  void shouldDropTheLargestOriginalHeadersFirstAndKeepKeyAndValueWhole() {
    DeadLetters d = deadLetters(Map.of("max.request.size", 1 << 20));
    Headers headers =
        new RecordHeaders()
            .add("trace-id", "t-1".getBytes())
            .add("big", new byte[1_045_000])
            .add("bigger", new byte[1_100_000])
            .add("small", new byte[1000]);
    byte[] value = new byte[5000];
    ProducerRecord<byte[], byte[]> r = deadLetter(d, "k/s".getBytes(), value, headers);
    assertThat(r.value()).isEqualTo(value);
    assertThat(r.key()).isEqualTo("k/s".getBytes());
    assertThat(r.headers().lastHeader("bigger")).isNull();
    assertThat(r.headers().lastHeader("big")).isNull();
    assertThat(header(r, "trace-id")).isEqualTo("t-1");
    assertThat(r.headers().lastHeader("small").value()).hasSize(1000);
    assertThat(header(r, "demandfold.dlq.headers.dropped"))
        .isEqualTo("count=2 bytes=" + ("bigger".length() + 1_100_000 + "big".length() + 1_045_000));
    assertThat(header(r, "demandfold.dlq.truncated")).isEqualTo("key=3 value=5000");
    assertThat(header(r, "demandfold.dlq.reason")).isEqualTo("invalid_field");
    assertThat(header(r, "__streams.errors.offset")).isEqualTo("7");
    assertThat(DeadLetters.sizeUpperBound(r)).isLessThanOrEqualTo(1 << 20);
    assertThat(metrics.dlqTruncated()).isEqualTo(1);
  }

  @Test
  void shouldDropEveryOriginalHeaderThenCutTheValueWhenTheHeadersAreNotEnough() {
    DeadLetters d = deadLetters(Map.of("max.request.size", 8192));
    Headers headers = new RecordHeaders().add("a", new byte[3000]).add("b", new byte[10]);
    byte[] value = new byte[20_000];
    Arrays.fill(value, (byte) 'v');
    ProducerRecord<byte[], byte[]> r = deadLetter(d, "k/s".getBytes(), value, headers);
    assertThat(r.headers().lastHeader("a")).isNull();
    assertThat(r.headers().lastHeader("b")).isNull();
    assertThat(header(r, "demandfold.dlq.headers.dropped")).isEqualTo("count=2 bytes=3012");
    assertThat(value).startsWith(r.value());
    assertThat(r.value().length).isLessThan(8192).isGreaterThan(1024);
    assertThat(r.key()).isEqualTo("k/s".getBytes());
    assertThat(header(r, "__streams.errors.stacktrace")).isNotBlank();
    assertThat(DeadLetters.sizeUpperBound(r)).isLessThanOrEqualTo(8192);
  }

  private static ErrorHandlerContext context(byte[] key, byte[] value) {
    return context(key, value, new RecordHeaders());
  }

  /** The context of a record at events-0 offset 7 with {@code key}, {@code value}, headers. */
  static ErrorHandlerContext context(byte[] key, byte[] value, Headers headers) {
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
        return headers;
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
