package io.demandfold.connect;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 decoding of keys, as the pipeline decodes them. */
final class Utf8 {
  private Utf8() {}

  /**
   * @throws InvalidEventException {@link Reason#INVALID_KEY} when {@code key} is not valid UTF-8
   */
  static String key(byte[] key) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(key))
          .toString();
    } catch (CharacterCodingException e) {
      throw new InvalidEventException(Reason.INVALID_KEY, "key is not valid UTF-8");
    }
  }
}
