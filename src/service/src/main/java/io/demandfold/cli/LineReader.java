package io.demandfold.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads {@code \n}-terminated lines as raw bytes, so that the decoder sees exactly what the file
 * holds (invalid UTF-8 included). A trailing {@code \r} is dropped.
 */
final class LineReader {
  private final InputStream in;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int limit;
  private byte[] line = new byte[256];

  LineReader(InputStream in) {
    this.in = in;
  }

  /** The next line without its terminator, or {@code null} at the end of input. */
  byte[] next() throws IOException {
    int n = 0;
    boolean any = false;
    while (true) {
      if (pos == limit) {
        limit = in.read(buf);
        pos = 0;
        if (limit <= 0) {
          limit = 0;
          return any ? trim(n) : null;
        }
      }
      any = true;
      byte b = buf[pos++];
      if (b == '\n') {
        return trim(n);
      }
      if (n == line.length) {
        line = Arrays.copyOf(line, n * 2);
      }
      line[n++] = b;
    }
  }

  private byte[] trim(int n) {
    if (n > 0 && line[n - 1] == '\r') {
      n--;
    }
    return Arrays.copyOf(line, n);
  }

  static boolean isBlank(byte[] line) {
    for (byte b : line) {
      if (b != ' ' && b != '\t') {
        return false;
      }
    }
    return true;
  }
}
