package io.demandfold.stream;

import io.demandfold.core.InvalidEventException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/**
 * What the handlers of records that fail on the way in share: their {@link DeadLetters}, and the
 * choice between dead-lettering bad input and stopping on a bug.
 */
abstract class DeadLetterHandler implements Configurable {
  private final DeadLetters deadLetters = new DeadLetters();

  @Override
  public void configure(Map<String, ?> configs) {
    deadLetters.configure(configs);
  }

  /**
   * The DLQ records of the record that failed with {@code exception} when it is bad input; {@code
   * null} when it is a bug (logged), and the stream must stop.
   */
  final List<ProducerRecord<byte[], byte[]>> deadLetters(
      ErrorHandlerContext context, Exception exception) {
    InvalidEventException rejection = DeadLetters.rejection(exception);
    if (rejection == null) {
      DeadLetters.bug(context, exception);
      return null;
    }
    return deadLetters.deadLetter(context, rejection, exception);
  }
}
