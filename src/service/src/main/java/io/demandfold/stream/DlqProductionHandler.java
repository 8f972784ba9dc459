package io.demandfold.stream;

import io.micrometer.core.instrument.Metrics;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DefaultProductionExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.errors.internals.ExceptionHandlerUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dead-letter record that the producer or the broker refuses for good (too large for a limit
 * lowered since the start, say) is logged, counted in {@code demandfold_dlq_dropped_total} and
 * dropped instead of failing the stream: failing would leave the bad event's offset uncommitted,
 * and every instance that takes the task over would fail on the same record. The event itself stays
 * in its topic at that offset. A retriable error of a dead-letter record, and any error of every
 * other record, is handled as Kafka Streams' default handler does (retry, or fail).
 *
 * <p>{@link DeadLetters} cuts every dead-letter record to fit the limits read at start, so this
 * handler only sees what those limits could not foresee.
 */
public final class DlqProductionHandler implements ProductionExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(DlqProductionHandler.class);

  private final DefaultProductionExceptionHandler fallback =
      new DefaultProductionExceptionHandler();
  private String topic;
  private PipelineMetrics metrics;

  @Override
  public void configure(Map<String, ?> configs) {
    fallback.configure(configs);
    Object t = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
    topic = t == null ? null : t.toString();
    Object m = configs.get(PipelineMetrics.CONFIG_KEY);
    metrics =
        m instanceof PipelineMetrics
            ? (PipelineMetrics) m
            : new PipelineMetrics(Metrics.globalRegistry);
  }

  @Override
  public Response handleError(
      ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
    if (topic == null || !topic.equals(record.topic()) || exception instanceof RetriableException) {
      return fallback.handleError(context, record, exception);
    }
    metrics.deadLetterDropped();
    // a dead-letter send has no record context of its own: the record names its source
    log.error(
        "the dead-letter record of {}-{} offset {} ({} bytes) was refused by the producer or the"
            + " broker and is dropped; the event stays in its topic at that offset: {}",
        header(record, ExceptionHandlerUtils.HEADER_ERRORS_TOPIC_NAME),
        header(record, ExceptionHandlerUtils.HEADER_ERRORS_PARTITION_NAME),
        header(record, ExceptionHandlerUtils.HEADER_ERRORS_OFFSET_NAME),
        DeadLetters.sizeUpperBound(record),
        exception.toString());
    return Response.resume();
  }

  private static String header(ProducerRecord<byte[], byte[]> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null || h.value() == null ? "?" : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Response handleSerializationError(
      ErrorHandlerContext context,
      ProducerRecord record,
      Exception exception,
      SerializationExceptionOrigin origin) {
    return fallback.handleSerializationError(context, record, exception, origin);
  }
}
