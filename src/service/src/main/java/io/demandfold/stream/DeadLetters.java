package io.demandfold.stream;

import io.demandfold.core.Causes;
import io.demandfold.core.InvalidEventException;
import io.micrometer.core.instrument.Metrics;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.internals.ExceptionHandlerUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes rejected events to the dead-letter topic with Kafka Streams' own DLQ support (KIP-1034):
 * the original key and value bytes and headers, Kafka's {@code __streams.errors.*} headers (the
 * exception, message, source topic, partition and offset) and ours, {@code demandfold.dlq.reason}
 * (the {@link InvalidEventException.Reason} code) and {@code demandfold.dlq.message}. Each reason
 * is counted.
 *
 * <p>A record too large for the DLQ topic (the pipeline producer's {@code max.request.size}, the
 * topic's {@code max.message.bytes}) would fail the whole transaction, and again after every
 * restart, on every instance that takes the task over: it is cut to fit instead. The original
 * record's headers go first, whole and largest first, with {@code demandfold.dlq.headers.dropped}
 * ({@code count=N bytes=B}, keys and values); then the value is cut, then the key. A cut record
 * carries {@code demandfold.dlq.truncated} with the original key and value sizes ({@code key=K
 * value=V}); the event itself stays in its topic at that offset. Kafka's {@code __streams.errors.*}
 * headers and ours are never cut.
 *
 * <p>Only an {@link InvalidEventException} is bad input; anything else is a bug, and the stream
 * stops rather than silently dropping a valid event.
 */
final class DeadLetters {
  static final String REASON_HEADER = "demandfold.dlq.reason";
  static final String MESSAGE_HEADER = "demandfold.dlq.message";
  static final String TRUNCATED_HEADER = "demandfold.dlq.truncated";
  static final String HEADERS_DROPPED_HEADER = "demandfold.dlq.headers.dropped";

  /** Room left for what the size estimate may miss. */
  static final int SLACK_BYTES = 1024;

  private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

  /** Per reason, at most one log line a second; the lines in between are counted. */
  private static final long LOG_INTERVAL_MS = 1000;

  private String topic;
  private int maxRecordBytes = Integer.MAX_VALUE;
  private PipelineMetrics metrics;
  private final java.util.Map<InvalidEventException.Reason, long[]> logState =
      new java.util.EnumMap<>(InvalidEventException.Reason.class);

  void configure(Map<String, ?> configs) {
    Object t = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
    topic = t == null ? null : t.toString();
    maxRecordBytes =
        Math.min(
            producerLimit(configs),
            intOf(configs.get(DlqDeserializationHandler.DLQ_MAX_MESSAGE_BYTES), Integer.MAX_VALUE));
    Object m = configs.get(PipelineMetrics.CONFIG_KEY);
    metrics =
        m instanceof PipelineMetrics
            ? (PipelineMetrics) m
            : new PipelineMetrics(Metrics.globalRegistry);
  }

  /** The rejection in {@code e}, or {@code null} when {@code e} is not bad input. */
  static InvalidEventException rejection(Throwable e) {
    return Causes.find(e, InvalidEventException.class);
  }

  /** The DLQ record of a rejected event; counts and logs it. */
  List<ProducerRecord<byte[], byte[]>> deadLetter(
      ErrorHandlerContext context, InvalidEventException rejection, Exception e) {
    metrics.deadLettered(rejection.reason());
    long now = System.currentTimeMillis();
    // {time of the last line, dead letters since}: the first of a reason is logged at once
    long[] state =
        logState.computeIfAbsent(rejection.reason(), r -> new long[] {now - LOG_INTERVAL_MS, 0});
    if (now - state[0] >= LOG_INTERVAL_MS) {
      log.warn(
          "dead-lettering the record at {}-{} offset {}: {}: {}{}",
          context.topic(),
          context.partition(),
          context.offset(),
          rejection.reason().code(),
          rejection.getMessage(),
          state[1] == 0 ? "" : " (and " + state[1] + " more of this reason since the last line)");
      state[0] = now;
      state[1] = 0;
    } else {
      state[1]++;
    }
    if (topic == null) {
      return List.of();
    }
    // Kafka copies the original headers first, then adds its own
    int originalHeaders = context.headers() == null ? 0 : context.headers().toArray().length;
    ProducerRecord<byte[], byte[]> r =
        ExceptionHandlerUtils.buildDeadLetterQueueRecord(
            topic, context.sourceRawKey(), context.sourceRawValue(), context, e);
    r.headers().add(REASON_HEADER, rejection.reason().code().getBytes(StandardCharsets.UTF_8));
    r.headers().add(MESSAGE_HEADER, rejection.getMessage().getBytes(StandardCharsets.UTF_8));
    return List.of(fit(r, originalHeaders, context));
  }

  /**
   * {@code r}, or a copy cut so that it fits the DLQ topic: first the original record's headers
   * (the first {@code originalHeaders} of {@code r}) are dropped whole, largest first, as many as
   * needed; then the value is cut at its end, then the key. Kafka's {@code __streams.errors.*}
   * headers and ours stay.
   */
  private ProducerRecord<byte[], byte[]> fit(
      ProducerRecord<byte[], byte[]> r, int originalHeaders, ErrorHandlerContext context) {
    int size = sizeUpperBound(r);
    int over = size - (maxRecordBytes - SLACK_BYTES);
    if (over <= 0) {
      return r;
    }
    Header[] headers = r.headers().toArray();
    Integer[] largestFirst = new Integer[Math.min(originalHeaders, headers.length)];
    for (int i = 0; i < largestFirst.length; i++) {
      largestFirst[i] = i;
    }
    Arrays.sort(largestFirst, (a, b) -> Integer.compare(bytes(headers[b]), bytes(headers[a])));
    boolean[] dropped = new boolean[headers.length];
    int droppedCount = 0;
    long droppedBytes = 0;
    for (int i : largestFirst) {
      if (over <= 0) {
        break;
      }
      dropped[i] = true;
      droppedCount++;
      droppedBytes += bytes(headers[i]);
      over -= bytes(headers[i]) + 10;
    }
    byte[] key = r.key();
    byte[] value = r.value();
    int fromValue = value == null ? 0 : Math.max(0, Math.min(value.length, over));
    value = value == null ? null : Arrays.copyOf(value, value.length - fromValue);
    int fromKey = over - fromValue;
    if (fromKey > 0 && key != null) {
      key = Arrays.copyOf(key, Math.max(0, key.length - fromKey));
    }
    RecordHeaders kept = new RecordHeaders();
    for (int i = 0; i < headers.length; i++) {
      if (!dropped[i]) {
        kept.add(headers[i]);
      }
    }
    String sizes =
        "key="
            + (r.key() == null ? 0 : r.key().length)
            + " value="
            + (r.value() == null ? 0 : r.value().length);
    kept.add(TRUNCATED_HEADER, sizes.getBytes(StandardCharsets.UTF_8));
    String droppedHeaders = "count=" + droppedCount + " bytes=" + droppedBytes;
    if (droppedCount > 0) {
      kept.add(HEADERS_DROPPED_HEADER, droppedHeaders.getBytes(StandardCharsets.UTF_8));
    }
    ProducerRecord<byte[], byte[]> cut =
        new ProducerRecord<>(r.topic(), r.partition(), r.timestamp(), key, value, kept);
    metrics.deadLetterTruncated();
    log.warn(
        "the dead-letter record of {}-{} offset {} is {} bytes, more than the DLQ topic {} takes"
            + " ({} bytes: kafka.producer.max.request.size and its max.message.bytes); it is cut to"
            + " fit ({}; original headers dropped: {}), the event stays in its topic at that offset",
        context.topic(),
        context.partition(),
        context.offset(),
        size,
        topic,
        maxRecordBytes,
        sizes,
        droppedHeaders);
    return cut;
  }

  /** The bytes of a header's key and value. */
  private static int bytes(Header h) {
    return h.key().getBytes(StandardCharsets.UTF_8).length
        + (h.value() == null ? 0 : h.value().length);
  }

  /**
   * An upper bound of the bytes {@code r} takes as the only record of a batch (the size the
   * producer and the broker check): the batch header, the record's varint fields at their longest,
   * key, value and headers.
   */
  static int sizeUpperBound(ProducerRecord<byte[], byte[]> r) {
    long n = 61 + 21 + 5 + (r.key() == null ? 5 : r.key().length + 5);
    n += r.value() == null ? 5 : r.value().length + 5;
    for (Header h : r.headers()) {
      n += h.key().getBytes(StandardCharsets.UTF_8).length + 5;
      n += (h.value() == null ? 0 : h.value().length) + 5;
    }
    return (int) Math.min(Integer.MAX_VALUE, n);
  }

  /** The pipeline producer's max.request.size: producer.-prefixed, plain, or Kafka's default. */
  static int producerLimit(Map<String, ?> configs) {
    Object v = configs.get(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG));
    if (v == null) {
      v = configs.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    }
    return intOf(v, 1024 * 1024);
  }

  private static int intOf(Object v, int otherwise) {
    if (v == null) {
      return otherwise;
    }
    if (v instanceof Number) {
      return ((Number) v).intValue();
    }
    try {
      return Integer.parseInt(v.toString().trim());
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  static void bug(ErrorHandlerContext context, Exception e) {
    log.error(
        "unexpected failure at {}-{} offset {}; stopping rather than losing the event",
        context.topic(),
        context.partition(),
        context.offset(),
        e);
  }
}
