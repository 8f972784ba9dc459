package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.demandfold.core.EnumNames;
import io.demandfold.core.Keys;
import io.demandfold.core.TableView;
import java.util.Comparator;
import java.util.OptionalLong;

/**
 * One target's table view as an entry of {@code /api/v1/demand/top}, and the orders of that list.
 *
 * @param target the target
 * @param view its table view
 */
record TargetDemand(String target, TableView view) {

  /** What {@code by=} ranks targets by; ties go by target in UTF-8 byte order. */
  enum Ranking {
    /** Most pending generations first. */
    PENDING,
    /** Oldest pending generation first (any bound); targets without a known time last. */
    AGE,
    /** Most pending bytes first. */
    BYTES;

    static Ranking parse(String s) {
      Ranking r = EnumNames.parse(Ranking.class, s);
      if (r == null) {
        throw ApiException.badRequest(
            "parameter 'by' is '" + s + "'; expected pending, age or bytes");
      }
      return r;
    }

    String wire() {
      return EnumNames.of(this);
    }

    Comparator<TargetDemand> order() {
      Comparator<TargetDemand> first;
      switch (this) {
        case PENDING:
          first =
              Comparator.comparingLong((TargetDemand d) -> d.view.pendingGenerations()).reversed();
          break;
        case BYTES:
          first = Comparator.comparingLong((TargetDemand d) -> d.view.pendingBytes()).reversed();
          break;
        default:
          first =
              Comparator.comparingLong(
                  (TargetDemand d) -> d.view.oldestPendingMs().orElse(Long.MAX_VALUE));
      }
      return first.thenComparing(TargetDemand::target, Keys.UTF8_ORDER);
    }
  }

  /**
   * How exact the table's oldest pending time is: {@code exact} when a shard's exact time is the
   * oldest, {@code upper} when the oldest is only an upper bound, {@code null} when none is known.
   */
  String bound() {
    return view.oldestPendingBound() == null ? null : view.oldestPendingBound().wire();
  }

  ObjectNode toJson() {
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("target", target);
    o.put("hex", Keys.hex(target));
    o.put("pending_generations", view.pendingGenerations());
    o.put("pending_bytes", view.pendingBytes());
    optional(o, "oldest_pending_ms", view.oldestPendingMs());
    optional(o, "oldest_pending_exact_ms", view.oldestPendingExactMs());
    o.put("oldest_pending_bound", bound());
    o.put("shards", view.shards());
    return o;
  }

  /**
   * The entry of another instance's reply, read strictly.
   *
   * @throws IllegalArgumentException naming a field that is missing or of another type
   */
  static TargetDemand fromJson(JsonNode o) {
    if (!o.isObject()) {
      throw new IllegalArgumentException("a target entry that is not an object");
    }
    long shards = ReplyFields.integer(o, "shards");
    if (shards < 0 || shards > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("field 'shards': " + shards + " is not a count");
    }
    return new TargetDemand(
        ReplyFields.text(o, "target"),
        new TableView(
            ReplyFields.integer(o, "pending_generations"),
            ReplyFields.integer(o, "pending_bytes"),
            ReplyFields.optionalInteger(o, "oldest_pending_ms"),
            ReplyFields.optionalInteger(o, "oldest_pending_exact_ms"),
            (int) shards));
  }

  private static void optional(ObjectNode o, String field, OptionalLong v) {
    if (v.isPresent()) {
      o.put(field, v.getAsLong());
    } else {
      o.putNull(field);
    }
  }
}
