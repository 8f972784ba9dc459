package io.demandfold.core.codec;

/** Appends JSON scalars to a {@link StringBuilder}, deterministically. */
final class JsonText {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private JsonText() {}

  /**
   * Appends {@code s} as a JSON string: {@code "} and {@code \} escaped, control characters as
   * {@code \b \f \n \r \t} or a backslash-u escape with four lowercase hex digits, everything else
   * as is.
   */
  static void string(StringBuilder sb, String s) {
    sb.append('"');
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\b':
          sb.append("\\b");
          break;
        case '\f':
          sb.append("\\f");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c < 0x20) {
            sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
          } else {
            sb.append(c);
          }
      }
    }
    sb.append('"');
  }

  /** Appends {@code ,"name":}; the caller has written the opening brace and a first field. */
  static StringBuilder field(StringBuilder sb, String name) {
    return sb.append(",\"").append(name).append("\":");
  }
}
