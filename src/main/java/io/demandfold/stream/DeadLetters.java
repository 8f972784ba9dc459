package io.demandfold.stream;

import io.demandfold.core.InvalidEventException;
import io.micrometer.core.instrument.Metrics;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 * <p>Only an {@link InvalidEventException} is bad input; anything else is a bug, and the stream
 * stops rather than silently dropping a valid event.
 */
final class DeadLetters {
  static final String REASON_HEADER = "demandfold.dlq.reason";
  static final String MESSAGE_HEADER = "demandfold.dlq.message";

  private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

  /** Per reason, at most one log line a second; the lines in between are counted. */
  private static final long LOG_INTERVAL_MS = 1000;

  private String topic;
  private PipelineMetrics metrics;
  private final java.util.Map<InvalidEventException.Reason, long[]> logState =
      new java.util.EnumMap<>(InvalidEventException.Reason.class);

  void configure(Map<String, ?> configs) {
    Object t = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
    topic = t == null ? null : t.toString();
    Object m = configs.get(PipelineMetrics.CONFIG_KEY);
    metrics =
        m instanceof PipelineMetrics
            ? (PipelineMetrics) m
            : new PipelineMetrics(Metrics.globalRegistry);
  }

  /** The rejection in {@code e}, or {@code null} when {@code e} is not bad input. */
  static InvalidEventException rejection(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InvalidEventException) {
        return (InvalidEventException) t;
      }
    }
    return null;
  }

  /** The DLQ record of a rejected event; counts and logs it. */
  List<ProducerRecord<byte[], byte[]>> deadLetter(
      ErrorHandlerContext context, InvalidEventException rejection, Exception e) {
    metrics.deadLettered(rejection.reason());
    long[] state =
        logState.computeIfAbsent(rejection.reason(), r -> new long[] {Long.MIN_VALUE, 0});
    long now = System.currentTimeMillis();
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
    ProducerRecord<byte[], byte[]> r =
        ExceptionHandlerUtils.buildDeadLetterQueueRecord(
            topic, context.sourceRawKey(), context.sourceRawValue(), context, e);
    r.headers().add(REASON_HEADER, rejection.reason().code().getBytes(StandardCharsets.UTF_8));
    r.headers().add(MESSAGE_HEADER, rejection.getMessage().getBytes(StandardCharsets.UTF_8));
    return List.of(r);
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
