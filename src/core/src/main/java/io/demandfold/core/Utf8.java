package io.demandfold.core;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8: malformed bytes are an error, never a replacement character. */
public final class Utf8 {
  private Utf8() {}

  /**
   * Decodes {@code bytes}; pure ASCII (every key and most shard ids) takes a fast path.
   *
   * @throws CharacterCodingException when {@code bytes} is not valid UTF-8
   */
  public static String decode(byte[] bytes) throws CharacterCodingException {
    return decode(bytes, 0, bytes.length);
  }

  /**
   * Decodes {@code length} bytes of {@code bytes} from {@code offset}.
   *
   * @throws CharacterCodingException when they are not valid UTF-8
   */
  public static String decode(byte[] bytes, int offset, int length)
      throws CharacterCodingException {
    for (int i = offset; i < offset + length; i++) {
      if (bytes[i] < 0) {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes, offset, length))
            .toString();
      }
    }
    return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
  }

  /**
   * The index of the first lone surrogate in {@code s} (a {@code char} no UTF-8 can encode), or -1
   * when {@code s} is valid Unicode.
   */
  public static int loneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
