package io.demandfold.core;

/**
 * Hostile text made safe to log and print: keys, shard ids, targets and values come from producers
 * and other etcd writers, and a control character in them could rewrite a terminal line, forge a
 * log line or hide text. Every {@code char} that is not plainly visible is written as a backslash,
 * a {@code u} and four lowercase hex digits (a bell is the six characters {@code \\u0007}, as in
 * Java and JSON), and a backslash as two, so that the escaped text names the original exactly.
 *
 * <p>Escaped: C0 controls and DEL, C1 controls, the line and paragraph separators, the
 * bidirectional formatting characters (which reorder what a terminal shows), the byte-order mark
 * and lone surrogates.
 */
public final class Printable {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Printable() {}

  /** {@code s} with every character that is not plainly visible escaped; {@code null} stays. */
  public static String escape(String s) {
    if (s == null) {
      return null;
    }
    int i = 0;
    while (i < s.length() && !escaped(s, i)) {
      i++;
    }
    if (i == s.length()) {
      return s;
    }
    StringBuilder sb = new StringBuilder(s.length() + 16).append(s, 0, i);
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        sb.append("\\\\");
      } else if (escaped(s, i)) {
        sb.append('\\').append('u');
        sb.append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xF]);
        sb.append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /** Whether the {@code char} at {@code i} is written escaped. */
  private static boolean escaped(String s, int i) {
    char c = s.charAt(i);
    if (c >= 0x20 && c < 0x7f) {
      return c == '\\';
    }
    if (c <= 0x9f) {
      return true; // C0, DEL, C1
    }
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return c == 0x061c // arabic letter mark
        || c == 0x200e
        || c == 0x200f // left-to-right, right-to-left marks
        || (c >= 0x2028 && c <= 0x202e) // line, paragraph separators; embeddings and overrides
        || (c >= 0x2066 && c <= 0x2069) // isolates
        || c == 0xfeff; // byte-order mark, zero-width no-break space
  }
}
