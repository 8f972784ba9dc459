package io.demandfold.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.demandfold.core.Keys;
import io.demandfold.core.Printable;
import io.demandfold.view.TableChange;
import io.demandfold.view.TableDemand;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;

/**
 * The lines of {@code demandfold watch}: a table whose column widths the first listing sets, then
 * one row per change in the same columns ({@code kubectl get -w} style); or JSON lines.
 */
final class WatchLines {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] HEADERS = {
    "TARGET", "CLASS", "PENDING", "PENDING_BYTES", "OLDEST_PENDING", "BOUND", "SHARDS", "REVISION"
  };
  private static final boolean[] NUMERIC = {false, false, true, true, true, false, true, true};

  private final boolean json;
  private final int[] widths = new int[HEADERS.length];

  WatchLines(boolean json) {
    this.json = json;
    for (int i = 0; i < HEADERS.length; i++) {
      widths[i] = HEADERS[i].length();
    }
    widths[1] = "critical".length(); // the longest class, so that a change stays in its column
  }

  /** The first listing: the header and a row per table (text), or a JSON line per table. */
  List<String> listing(Collection<TableDemand> tables, long nowMs) {
    List<String[]> rows = new ArrayList<>();
    for (TableDemand t : tables) {
      rows.add(cells(t, nowMs));
    }
    List<String> out = new ArrayList<>();
    if (json) {
      tables.forEach(t -> out.add(demand(t).toString()));
      return out;
    }
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        widths[i] = Math.max(widths[i], r[i].length());
      }
    }
    out.add(line(HEADERS));
    rows.forEach(r -> out.add(line(r)));
    return out;
  }

  /** The line of a change. */
  String change(TableChange c, long nowMs) {
    if (json) {
      ObjectNode o;
      if (c.current() != null) {
        o = demand(c.current());
      } else {
        o = JSON.createObjectNode();
        o.put("target", c.target());
        o.put("hex", Keys.hex(c.target()));
        o.put("revision", c.revision());
        if (c.deleted()) {
          o.put("deleted", true);
        } else {
          o.put("refused", c.refused());
        }
      }
      return o.toString();
    }
    if (c.current() != null) {
      return line(cells(c.current(), nowMs));
    }
    String[] r = {
      Printable.escape(c.target()),
      c.deleted() ? "deleted" : "refused",
      "-",
      "-",
      "-",
      "-",
      "-",
      Long.toString(c.revision())
    };
    String l = line(r);
    return c.deleted() ? l : l + "  " + Printable.escape(c.refused());
  }

  /** The line after a resync. */
  String resynced(long revision) {
    if (json) {
      ObjectNode o = JSON.createObjectNode();
      o.put("resynced", true);
      o.put("revision", revision);
      return o.toString();
    }
    return "# resynced at revision "
        + revision
        + ": the watch could not go on (history compacted, a backlog too large, or etcd restored);"
        + " the lines above brought every table to a fresh snapshot, changes in between were"
        + " skipped";
  }

  private static ObjectNode demand(TableDemand t) {
    ObjectNode o = JSON.createObjectNode();
    o.put("target", t.target());
    o.put("hex", Keys.hex(t.target()));
    o.put("class", t.urgency().wire());
    o.put("pending_generations", t.pendingGenerations());
    o.put("pending_bytes", t.pendingBytes());
    optional(o, "oldest_pending_ms", t.oldestPendingMs());
    optional(o, "oldest_pending_exact_ms", t.oldestPendingExactMs());
    o.put(
        "oldest_pending_bound",
        t.oldestPendingBound() == null ? null : t.oldestPendingBound().wire());
    o.put("shards", t.shards());
    o.put("revision", t.revision());
    return o;
  }

  private static void optional(ObjectNode o, String field, OptionalLong v) {
    if (v.isPresent()) {
      o.put(field, v.getAsLong());
    } else {
      o.putNull(field);
    }
  }

  private static String[] cells(TableDemand t, long nowMs) {
    return new String[] {
      Printable.escape(t.target()),
      t.urgency().wire(),
      Long.toString(t.pendingGenerations()),
      Long.toString(t.pendingBytes()),
      t.oldestPendingMs().isPresent() ? age(nowMs - t.oldestPendingMs().getAsLong()) : "-",
      t.oldestPendingBound() == null ? "-" : t.oldestPendingBound().wire(),
      Integer.toString(t.shards()),
      Long.toString(t.revision())
    };
  }

  private static String age(long ms) {
    return ms < 0 ? "0s" : ms / 1000 + "s";
  }

  private String line(String[] cells) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) {
        sb.append("  ");
      }
      String pad = " ".repeat(Math.max(0, widths[i] - cells[i].length()));
      if (NUMERIC[i]) {
        sb.append(pad).append(cells[i]);
      } else {
        sb.append(cells[i]);
        if (i < cells.length - 1) {
          sb.append(pad);
        }
      }
    }
    return sb.toString().stripTrailing();
  }
}
