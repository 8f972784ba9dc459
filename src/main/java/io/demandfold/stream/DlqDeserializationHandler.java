package io.demandfold.stream;

import io.demandfold.core.InvalidEventException;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/** Undecodable keys and values go to the DLQ with their reason; see {@link DeadLetters}. */
public final class DlqDeserializationHandler implements DeserializationExceptionHandler {
  /**
   * Streams config key of the DLQ topic's {@code max.message.bytes}, which the service reads at
   * start: dead-letter records are cut to fit it.
   */
  public static final String DLQ_MAX_MESSAGE_BYTES = "demandfold.dlq.max.message.bytes";

  private final DeadLetters deadLetters = new DeadLetters();

  @Override
  public void configure(Map<String, ?> configs) {
    deadLetters.configure(configs);
  }

  @Override
  public Response handleError(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    InvalidEventException rejection = DeadLetters.rejection(exception);
    if (rejection == null) {
      DeadLetters.bug(context, exception);
      return Response.fail();
    }
    return Response.resume(deadLetters.deadLetter(context, rejection, exception));
  }
}
