package io.demandfold.core.codec;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;

/**
 * Decodes an event value of either encoding, told apart by its first bytes: the Avro single-object
 * marker {@code C3 01}, or a JSON object ({@code &#123;} after optional whitespace).
 */
public final class EventDecoder {
  private EventDecoder() {}

  /**
   * Decodes {@code bytes} as an event.
   *
   * @throws InvalidEventException with a precise reason and message for anything that is not a
   *     valid event
   */
  public static DemandEvent decode(byte[] bytes) {
    if (bytes == null) {
      throw new InvalidEventException(Reason.NULL_VALUE, "record has no value");
    }
    if (bytes.length == 0) {
      throw new InvalidEventException(Reason.UNDECODABLE, "empty value");
    }
    if (AvroCodec.isSingleObject(bytes)) {
      return AvroCodec.decodeEvent(bytes);
    }
    for (byte b : bytes) {
      if (b == '{') {
        return JsonCodec.decodeEvent(bytes);
      }
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        break;
      }
    }
    throw new InvalidEventException(
        Reason.UNDECODABLE,
        "neither Avro single-object encoding (C3 01 ...) nor a JSON object; first bytes: "
            + firstBytes(bytes));
  }

  private static String firstBytes(byte[] bytes) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(8, bytes.length); i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(String.format("%02x", bytes[i] & 0xFF));
    }
    return sb.toString();
  }
}
