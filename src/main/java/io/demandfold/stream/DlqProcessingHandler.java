package io.demandfold.stream;

import io.demandfold.core.InvalidEventException;
import java.util.Map;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/** Keys that do not match their value go to the DLQ with their reason; see {@link DeadLetters}. */
public final class DlqProcessingHandler implements ProcessingExceptionHandler {
  private final DeadLetters deadLetters = new DeadLetters();

  @Override
  public void configure(Map<String, ?> configs) {
    deadLetters.configure(configs);
  }

  @Override
  public Response handleError(
      ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
    InvalidEventException rejection = DeadLetters.rejection(exception);
    if (rejection == null) {
      DeadLetters.bug(context, exception);
      return Response.fail();
    }
    return Response.resume(deadLetters.deadLetter(context, rejection, exception));
  }
}
