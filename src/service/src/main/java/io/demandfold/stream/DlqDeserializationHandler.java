package io.demandfold.stream;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/** Undecodable keys and values go to the DLQ with their reason; see {@link DeadLetters}. */
public final class DlqDeserializationHandler extends DeadLetterHandler
    implements DeserializationExceptionHandler {
  /**
   * Streams config key of the DLQ topic's {@code max.message.bytes}, which the service reads at
   * start: dead-letter records are cut to fit it.
   */
  public static final String DLQ_MAX_MESSAGE_BYTES = "demandfold.dlq.max.message.bytes";

  @Override
  public Response handleError(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    var records = deadLetters(context, exception);
    return records == null ? Response.fail() : Response.resume(records);
  }
}
