package io.demandfold.cli;

import io.demandfold.core.Printable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain aligned text table for terminals: left-aligned text, right-aligned numbers; cells are
 * {@linkplain Printable#escape escaped}, so a target or shard id cannot rewrite the terminal.
 */
public final class TextTable {
  private final String[] headers;
  private final boolean[] numeric;
  private final List<String[]> rows = new ArrayList<>();

  public TextTable(String... headers) {
    this.headers = headers;
    this.numeric = new boolean[headers.length];
  }

  /** Right-aligns the given columns. */
  public TextTable numeric(int... columns) {
    for (int c : columns) {
      numeric[c] = true;
    }
    return this;
  }

  public TextTable row(Object... cells) {
    String[] r = new String[headers.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = i < cells.length && cells[i] != null ? Printable.escape(String.valueOf(cells[i])) : "";
    }
    rows.add(r);
    return this;
  }

  public void print(PrintWriter out) {
    int[] w = new int[headers.length];
    for (int i = 0; i < w.length; i++) {
      w[i] = headers[i].length();
      for (String[] r : rows) {
        w[i] = Math.max(w[i], r[i].length());
      }
    }
    line(out, headers, w);
    for (String[] r : rows) {
      line(out, r, w);
    }
  }

  private void line(PrintWriter out, String[] cells, int[] w) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) {
        sb.append("  ");
      }
      String c = cells[i];
      String pad = " ".repeat(w[i] - c.length());
      if (numeric[i]) {
        sb.append(pad).append(c);
      } else {
        sb.append(c);
        if (i < cells.length - 1) {
          sb.append(pad);
        }
      }
    }
    out.println(sb.toString().stripTrailing());
  }
}
