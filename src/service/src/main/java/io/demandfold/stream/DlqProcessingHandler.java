package io.demandfold.stream;

import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/** Keys that do not match their value go to the DLQ with their reason; see {@link DeadLetters}. */
public final class DlqProcessingHandler extends DeadLetterHandler
    implements ProcessingExceptionHandler {
  @Override
  public Response handleError(
      ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
    var records = deadLetters(context, exception);
    return records == null ? Response.fail() : Response.resume(records);
  }
}
