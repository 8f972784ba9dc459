package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.demandfold.http.DemandStore.Vitals;
import java.io.IOException;
import java.util.List;

/**
 * {@code GET /api/v1/summary}: totals over every instance (targets, pending generations and bytes,
 * dead letters, folded events, dirty keys and mirror lag) and each instance's part.
 */
final class SummaryApi {
  private static final List<String> SUMS =
      List.of(
          "targets",
          "targets_pending",
          "pending_generations",
          "pending_bytes",
          "dlq_total",
          "events_folded");

  private final DemandStore store;
  private final Peers peers;
  private final TableSnapshots tables;

  SummaryApi(DemandStore store, Peers peers, TableSnapshots tables) {
    this.store = store;
    this.peers = peers;
    this.tables = tables;
  }

  void summary(Exchange ex) throws IOException, InterruptedException {
    InstanceSums.answer(
        ex,
        store,
        peers,
        "/api/v1/summary",
        Peers.replyBound(0, 0),
        this::local,
        SummaryApi::checked,
        SummaryApi::sum);
  }

  /** The totals of every part, the mirror's dirty keys summed and its lags' maximum. */
  private static ObjectNode sum(List<JsonNode> parts, List<String> unavailable) {
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("now_ms", System.currentTimeMillis());
    for (String f : SUMS) {
      o.put(f, parts.stream().mapToLong(p -> p.path(f).asLong()).sum());
    }
    ObjectNode mirror = o.putObject("mirror");
    ObjectNode dirty = mirror.putObject("dirty_keys");
    ObjectNode lag = mirror.putObject("lag_seconds");
    for (String kind : List.of("shard", "table")) {
      dirty.put(
          kind, parts.stream().mapToLong(p -> p.at("/mirror/dirty_keys/" + kind).asLong()).sum());
      lag.put(
          kind,
          parts.stream()
              .mapToDouble(p -> p.at("/mirror/lag_seconds/" + kind).asDouble())
              .max()
              .orElse(0));
    }
    ArrayNode instances = o.putArray("instances");
    parts.forEach(instances::add);
    unavailable.forEach(o.putArray("unavailable")::add);
    return o;
  }

  /**
   * Another instance's part, as it is once its fields are checked: its totals and the mirror's
   * numbers must be numbers.
   */
  private static JsonNode checked(JsonNode part) {
    ReplyFields.text(part, "instance");
    for (String f : SUMS) {
      ReplyFields.integer(part, f);
    }
    JsonNode mirror = ReplyFields.object(part, "mirror");
    JsonNode dirty = ReplyFields.object(mirror, "dirty_keys");
    JsonNode lag = ReplyFields.object(mirror, "lag_seconds");
    for (String kind : List.of("shard", "table")) {
      ReplyFields.integer(dirty, kind);
      ReplyFields.number(lag, kind);
    }
    return part;
  }

  /** This instance's part: totals from a read of its stores at most 1 s old, live vitals. */
  private ObjectNode local() {
    Vitals v = store.vitals();
    DemandTotals t = tables.get().totals();
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("instance", store.self());
    o.put("state", v.state());
    o.put("targets", t.targets());
    o.put("targets_pending", t.targetsPending());
    o.put("pending_generations", t.pendingGenerations());
    o.put("pending_bytes", t.pendingBytes());
    o.put("dlq_total", v.dlqTotal());
    o.put("events_folded", v.eventsFolded());
    ObjectNode mirror = o.putObject("mirror");
    mirror
        .putObject("dirty_keys")
        .put("shard", v.dirtyShardKeys())
        .put("table", v.dirtyTableKeys());
    mirror
        .putObject("lag_seconds")
        .put("shard", v.shardLagSeconds())
        .put("table", v.tableLagSeconds());
    return o;
  }
}
