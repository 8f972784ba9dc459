package io.demandfold.core.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.core.DerivedTable;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.Limits;
import io.demandfold.core.Mark;
import io.demandfold.core.Printable;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.TableProgress;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.TableView;
import io.demandfold.core.Versions;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * JSON of the table record mirrored to {@code <prefix>/demand/<hex>}: the reference shape, each
 * shard with only its oldest pending flush time, plus the derived table view.
 *
 * <pre>
 * {"v":1,"shards":{"&lt;id&gt;":{"sealed":{"epoch":E,"value":V},"merged":{"epoch":E,"value":V}|null,
 *   "sealed_bytes":B,"sealed_times":{"g":t}|{},"kept":{"count":N,"lowest":L}}},
 *  "observed_revision":R,"updated_ms":U,"pending_generations":N,"pending_bytes":B,
 *  "oldest_pending_ms":X|null,"oldest_pending_exact_ms":Y|null}
 * </pre>
 *
 * See {@link TableShard} for the entry. A shard written by another writer in the reference shape
 * (every flush time, no {@code kept}) is read as the entry of those flush times. A record larger
 * than the etcd request limit is written compact: every shard without {@code sealed_times} and
 * {@code kept}, and {@code "compact":true}; the derived fields still come from the full record. One
 * larger than that is written with its derived fields and progress alone ({@link #derivedOnly}).
 */
public final class TableJson {
  private static final ObjectMapper MAPPER = new ObjectMapper(JsonCodec.boundedFactory());

  /**
   * The fewest bytes a shard's entry takes in the compact form: {@code ,"s":{"sealed":{"epoch":0,
   * "value":0},"merged":null,"sealed_bytes":0}}.
   */
  static final int MIN_COMPACT_ENTRY_BYTES = 67;

  private TableJson() {}

  /**
   * The JSON of {@code r}: full when it fits {@code maxBytes}, else compact, else {@link
   * #derivedOnly} (which always fits). A form is abandoned as soon as it outgrows the limit, so a
   * target of many shards costs no more than the limit to try.
   */
  public static byte[] encode(TableRecord r, int maxBytes) {
    TableView view = r.view();
    byte[] full = encode(r, view, false, maxBytes);
    if (full != null) {
      return full;
    }
    byte[] compact = encode(r, view, true, maxBytes);
    return compact != null
        ? compact
        : derivedOnly(new DerivedTable(view, TableProgress.of(r.shards().values())));
  }

  /**
   * A table record of the derived fields alone, for a target whose entries do not fit the request
   * limit even compact: {@code "shards":{}}, the view, {@code "shard_count"}, the {@link
   * TableProgress} of the entries as {@code "progress":[...]} and {@code "derived_only":true}. It
   * carries no entries to join, so unlike the other forms it does not keep other writers' shards;
   * its progress is what lets the mirror refuse a stale writer's older view of it.
   */
  public static byte[] derivedOnly(DerivedTable table) {
    TableView view = table.view();
    StringBuilder sb = new StringBuilder(512);
    sb.append("{\"v\":").append(Versions.CURRENT).append(",\"shards\":{}");
    tail(sb, 0, 0, view);
    JsonText.field(sb, "shard_count").append(view.shards());
    JsonText.field(sb, "progress").append('[');
    List<BigInteger> sums = table.progress().sums();
    for (int i = 0; i < sums.size(); i++) {
      sb.append(i == 0 ? "" : ",").append(sums.get(i));
    }
    sb.append(']');
    JsonText.field(sb, "derived_only").append("true");
    return sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The {@code progress} of a table record of {@link #derivedOnly} form, {@code null} when it has
   * none (a derived-only record written before the field, or a record of another form).
   *
   * @throws io.demandfold.core.UnknownVersionException when {@code v} is not 0 or 1
   * @throws InvalidEventException when the bytes are not a table record, or {@code progress} is not
   *     an array of {@value TableProgress#SIZE} integers
   */
  public static TableProgress progress(byte[] json) {
    JsonNode root = parse(json);
    record(root);
    JsonNode p = root.get("progress");
    if (p == null || p.isNull()) {
      return null;
    }
    if (!p.isArray() || p.size() != TableProgress.SIZE) {
      throw invalid("field 'progress' must be an array of " + TableProgress.SIZE + " integers");
    }
    List<BigInteger> sums = new ArrayList<>(TableProgress.SIZE);
    for (JsonNode n : p) {
      if (!n.isIntegralNumber()) {
        throw invalid(
            "field 'progress' holds " + Keys.abbreviate(n.toString()) + "; not an integer");
      }
      sums.add(n.bigIntegerValue());
    }
    return TableProgress.of(sums);
  }

  /**
   * The most shards a table record may have and still fit {@code maxBytes} compact; a target with
   * more is surely written {@link #derivedOnly}.
   */
  public static int entriesThatMayFit(int maxBytes) {
    return maxBytes / MIN_COMPACT_ENTRY_BYTES;
  }

  /** Whether {@code json} is a table record of {@link #derivedOnly} form. */
  public static boolean isDerivedOnly(byte[] json) {
    int n = json.length;
    return n > 22
        && new String(json, n - 21, 21, StandardCharsets.UTF_8).equals(",\"derived_only\":true}");
  }

  /** The full or compact form, or {@code null} once it outgrows {@code maxBytes}. */
  private static byte[] encode(TableRecord r, TableView view, boolean compact, int maxBytes) {
    StringBuilder sb = new StringBuilder(256 + 200 * Math.min(r.shards().size(), 10_000));
    sb.append("{\"v\":").append(Versions.CURRENT).append(",\"shards\":{");
    boolean first = true;
    for (Map.Entry<String, TableShard> e : r.shards().entrySet()) {
      if (sb.length() > maxBytes) {
        return null;
      }
      if (!first) {
        sb.append(',');
      }
      first = false;
      JsonText.string(sb, e.getKey());
      TableShard s = e.getValue();
      sb.append(":{\"sealed\":");
      mark(sb, s.sealed());
      sb.append(",\"merged\":");
      if (s.merged() == null) {
        sb.append("null");
      } else {
        mark(sb, s.merged());
      }
      sb.append(",\"sealed_bytes\":").append(s.sealedBytes());
      if (!compact) {
        sb.append(",\"sealed_times\":{");
        if (s.hasOldest()) {
          sb.append('"').append(s.oldestGeneration()).append("\":").append(s.oldestMs());
        }
        sb.append("},\"kept\":{\"count\":")
            .append(s.kept().count())
            .append(",\"lowest\":")
            .append(s.kept().lowest())
            .append('}');
      }
      sb.append('}');
    }
    sb.append('}');
    tail(sb, r.observedRevision(), r.updatedMs(), view);
    if (compact) {
      JsonText.field(sb, "compact").append("true");
    }
    byte[] out = sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
    return out.length <= maxBytes ? out : null;
  }

  private static void tail(
      StringBuilder sb, long observedRevision, long updatedMs, TableView view) {
    JsonText.field(sb, "observed_revision").append(observedRevision);
    JsonText.field(sb, "updated_ms").append(updatedMs);
    JsonText.field(sb, "pending_generations").append(view.pendingGenerations());
    JsonText.field(sb, "pending_bytes").append(view.pendingBytes());
    JsonText.field(sb, "oldest_pending_ms");
    sb.append(
        view.oldestPendingMs().isPresent() ? view.oldestPendingMs().getAsLong() + "" : "null");
    JsonText.field(sb, "oldest_pending_exact_ms");
    sb.append(
        view.oldestPendingExactMs().isPresent()
            ? view.oldestPendingExactMs().getAsLong() + ""
            : "null");
  }

  private static void mark(StringBuilder sb, Mark m) {
    sb.append("{\"epoch\":").append(m.epoch()).append(",\"value\":").append(m.value()).append('}');
  }

  /**
   * Reads a table record; derived fields and {@code compact} are ignored (they are recomputed).
   *
   * @throws io.demandfold.core.UnknownVersionException when {@code v} is not 0 or 1
   * @throws InvalidEventException when the bytes are not a table record
   */
  public static TableRecord decode(byte[] bytes) {
    return record(parse(bytes));
  }

  /**
   * The table view a stored table record carries: derived from its entries ({@link
   * TableRecord#view}), or, for a record written {@code compact} (entries without flush times) or
   * {@code derived_only} (no entries), read from its derived fields, which the writer derived from
   * the full record. Never a zero view for a record whose entries were left out.
   *
   * @throws io.demandfold.core.UnknownVersionException when {@code v} is not 0 or 1
   * @throws InvalidEventException when the bytes are not a table record, or a compact or
   *     derived-only record lacks a derived field
   */
  public static TableView decodeView(byte[] bytes) {
    JsonNode root = parse(bytes);
    TableRecord r = record(root);
    boolean derivedOnly = root.path("derived_only").asBoolean(false);
    if (!derivedOnly && !root.path("compact").asBoolean(false)) {
      return r.view();
    }
    long shards = derivedOnly ? u64(root, "shard_count", -1) : r.shards().size();
    return new TableView(
        u64(root, "pending_generations", -1),
        u64(root, "pending_bytes", -1),
        time(root, "oldest_pending_ms"),
        time(root, "oldest_pending_exact_ms"),
        (int) Math.min(Integer.MAX_VALUE, shards));
  }

  /** A derived time field: present and {@code null}, or an integer. */
  private static OptionalLong time(JsonNode root, String field) {
    JsonNode n = root.get(field);
    if (n == null) {
      throw invalid("missing field '" + field + "'");
    }
    if (n.isNull()) {
      return OptionalLong.empty();
    }
    if (!n.isIntegralNumber() || !n.canConvertToLong()) {
      throw invalid("field '" + field + "' is " + n + "; expected an integer or null");
    }
    return OptionalLong.of(n.asLong());
  }

  private static JsonNode parse(byte[] bytes) {
    JsonNode root;
    try {
      root = MAPPER.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw new InvalidEventException(
          Reason.UNDECODABLE, "malformed JSON: " + Printable.escape(e.getOriginalMessage()), e);
    } catch (IOException e) {
      throw new InvalidEventException(Reason.UNDECODABLE, "unreadable JSON: " + e, e);
    }
    if (root == null || !root.isObject()) {
      throw invalid("a table record must be a JSON object");
    }
    return root;
  }

  private static TableRecord record(JsonNode root) {
    JsonNode v = root.get("v");
    if (v != null) {
      if (!v.isIntegralNumber()) {
        throw invalid("field 'v' is not an integer");
      }
      if (!v.canConvertToLong()) {
        throw new io.demandfold.core.UnknownVersionException(
            io.demandfold.core.Keys.abbreviate(v.asText()));
      }
      Versions.check(v.asLong());
    }
    JsonNode shards = root.get("shards");
    if (shards == null || !shards.isObject()) {
      throw invalid("field 'shards' must be an object");
    }
    Map<String, TableShard> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = shards.properties().iterator();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), shard(e.getKey(), e.getValue()));
    }
    return new TableRecord(out, u64(root, "observed_revision", 0), u64(root, "updated_ms", 0));
  }

  private static TableShard shard(String key, JsonNode n) {
    String id = Keys.abbreviate(key);
    if (!n.isObject()) {
      throw invalid("shard '" + id + "' must be an object");
    }
    Mark sealed = mark(id, "sealed", n.get("sealed"));
    if (sealed == null) {
      throw invalid("shard '" + id + "': missing field 'sealed'");
    }
    Mark merged = mark(id, "merged", n.get("merged"));
    long bytes = u64(n, "sealed_bytes", 0);
    SealedTimes.Builder times = new SealedTimes.Builder();
    JsonNode t = n.get("sealed_times");
    if (t != null && !t.isNull()) {
      if (!t.isObject()) {
        throw invalid("shard '" + id + "': field 'sealed_times' must be an object");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = t.properties().iterator(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        long g;
        try {
          g = JsonCodec.parseGeneration(e.getKey());
        } catch (InvalidEventException x) {
          throw invalid("shard '" + id + "': " + x.getMessage());
        }
        if (!e.getValue().canConvertToLong() || !e.getValue().isIntegralNumber()) {
          throw invalid("shard '" + id + "': sealed_times[" + g + "] is not an integer");
        }
        times.put(g, e.getValue().asLong());
      }
    }
    TableShard entry = TableShard.of(sealed, merged, bytes, times.build());
    JsonNode kept = n.get("kept");
    if (kept == null || kept.isNull()) {
      return entry;
    }
    if (!kept.isObject()) {
      throw invalid("shard '" + id + "': field 'kept' must be {count,lowest}");
    }
    long count = u64(kept, "count", -1);
    if (count > Limits.SEALED_TIMES_CAP) {
      throw invalid(
          "shard '" + id + "': kept.count is " + count + "; at most " + Limits.SEALED_TIMES_CAP);
    }
    return new TableShard(
        sealed,
        merged,
        bytes,
        entry.oldestGeneration(),
        entry.oldestMs(),
        new TableShard.Kept((int) count, u64(kept, "lowest", -1)));
  }

  private static Mark mark(String id, String field, JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw invalid("shard '" + id + "': field '" + field + "' must be {epoch,value}");
    }
    return new Mark(u64(n, "value", -1), u64(n, "epoch", -1));
  }

  private static long u64(JsonNode parent, String field, long dflt) {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      if (dflt < 0) {
        throw invalid("missing field '" + field + "'");
      }
      return dflt;
    }
    if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0) {
      throw invalid(
          "field '" + field + "' is " + n + "; expected an integer in 0.." + Long.MAX_VALUE);
    }
    return n.asLong();
  }

  private static InvalidEventException invalid(String message) {
    return new InvalidEventException(Reason.INVALID_FIELD, message);
  }
}
