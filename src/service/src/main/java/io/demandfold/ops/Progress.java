package io.demandfold.ops;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Reports the progress of a long read: on a terminal one line rewritten in place, otherwise a plain
 * line every few seconds; always a final summary.
 */
public final class Progress {
  private static final long TERMINAL_EVERY_MS = 250;
  private static final long PLAIN_EVERY_MS = 5000;

  private final PrintWriter out;
  private final boolean terminal;
  private final String what;
  private final long startNanos = System.nanoTime();
  private long lastMs = Long.MIN_VALUE;

  /**
   * @param terminal rewrite one line in place (interactive) instead of printing periodic lines
   */
  public Progress(PrintWriter out, boolean terminal, String what) {
    this.out = out;
    this.terminal = terminal;
    this.what = what;
  }

  /** Whether stderr goes to a terminal. */
  public static boolean isTerminal() {
    return System.console() != null;
  }

  /** Reports {@code done} records read and {@code remaining} still to read. */
  public void update(long done, long remaining) {
    long nowMs = System.nanoTime() / 1_000_000;
    if (nowMs - lastMs < (terminal ? TERMINAL_EVERY_MS : PLAIN_EVERY_MS)) {
      return;
    }
    lastMs = nowMs;
    String line = line(done, remaining);
    if (terminal) {
      out.print("\r" + line + "   ");
    } else {
      out.println(line);
    }
    out.flush();
  }

  /** Ends the progress output with {@code summary}. */
  public void finish(long done, String summary) {
    if (terminal) {
      out.print("\r" + " ".repeat(100) + "\r");
    }
    double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
    out.printf(
        Locale.ROOT,
        "%s: %,d events in %.1f s (%,.0f events/s)%s%n",
        what,
        done,
        seconds,
        done / seconds,
        summary.isEmpty() ? "" : "; " + summary);
    out.flush();
  }

  String line(long done, long remaining) {
    double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
    double rate = done / seconds;
    String eta = rate > 0 ? String.format(Locale.ROOT, "%.0f s", remaining / rate) : "?";
    return String.format(
        Locale.ROOT,
        "%s: %,d events read (%,.0f/s), %,d remaining, ETA %s",
        what,
        done,
        rate,
        remaining,
        eta);
  }
}
