package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.Limits;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.http.TargetDemand.Ranking;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code GET /api/v1/demand?target=T} and {@code GET /api/v1/demand/top?n=&by=}: a target's table
 * and shard views gathered from every instance, and the most demanding targets over every instance.
 */
final class DemandApi {
  static final int DEFAULT_TOP = 20;
  static final int MAX_TOP = 1000;

  private final DemandStore store;
  private final Peers peers;
  private final TableSnapshots tables;

  DemandApi(DemandStore store, Peers peers, TableSnapshots tables) {
    this.store = store;
    this.peers = peers;
    this.tables = tables;
  }

  /**
   * A target's table view and shard views, gathered from every instance: shard records are
   * partitioned by shard, so any instance may hold some of a target's shards. {@code scope=local}
   * answers with this instance's shards only (200, possibly none).
   */
  void demand(HttpExchange ex) throws IOException, InterruptedException {
    Map<String, String> q = Replies.query(ex, Set.of("target", "scope"));
    String target = q.get("target");
    if (target == null || target.isEmpty()) {
      throw ApiException.badRequest("parameter 'target' is required");
    }
    if (target.getBytes(StandardCharsets.UTF_8).length > Limits.MAX_TARGET_BYTES) {
      throw ApiException.badRequest(
          "parameter 'target' is longer than " + Limits.MAX_TARGET_BYTES + " UTF-8 bytes");
    }
    String hex = Keys.hex(target);
    boolean local = isLocal(q);
    TreeMap<String, ShardRecord> shards = new TreeMap<>(Keys.UTF8_ORDER);
    store.shards(hex).forEach(r -> shards.put(r.shard(), r));
    List<String> instances = new ArrayList<>(List.of(store.self()));
    if (!local) {
      Peers.Gathered g =
          peers.gather(
              store.peers(),
              "/api/v1/demand?target="
                  + URLEncoder.encode(target, StandardCharsets.UTF_8)
                  + "&scope=local");
      if (!g.unavailable().isEmpty()) {
        throw new ApiException(
            502,
            "instance(s) "
                + String.join(", ", g.unavailable())
                + " may hold shards of this target but did not answer");
      }
      for (JsonNode reply : g.replies()) {
        instances.add(reply.path("instance").asText());
        for (JsonNode line : reply.path("shards")) {
          ShardRecord r;
          try {
            r = JsonCodec.decodeRecord(Replies.JSON.writeValueAsBytes(line.path("record")));
          } catch (InvalidEventException e) {
            throw new ApiException(
                502,
                "instance "
                    + Keys.abbreviate(reply.path("instance").asText())
                    + " answered a shard record that cannot be read: "
                    + e.getMessage());
          }
          shards.merge(r.shard(), r, Join::join);
        }
      }
    }
    if (shards.isEmpty() && !local) {
      throw ApiException.notFound("no demand known for target '" + Keys.abbreviate(target) + "'");
    }
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("target", target);
    o.put("hex", hex);
    o.put("instance", store.self());
    instances.forEach(o.putArray("instances")::add);
    o.put("now_ms", System.currentTimeMillis());
    TargetDemand table = new TargetDemand(target, TableView.of(shards.values()));
    o.set("table", Replies.JSON.readTree(ViewJson.tableLine(target, table.view())));
    o.put("oldest_pending_bound", table.bound());
    ArrayNode lines = o.putArray("shards");
    for (ShardRecord r : shards.values()) {
      lines.add(Replies.JSON.readTree(ViewJson.shardLine(target, r)));
    }
    Replies.json(ex, 200, o);
  }

  /** The top {@code n} targets with pending generations, by {@code by}, over every instance. */
  void top(HttpExchange ex) throws IOException, InterruptedException {
    Map<String, String> q = Replies.query(ex, Set.of("n", "by", "scope"));
    int n = count(q.getOrDefault("n", String.valueOf(DEFAULT_TOP)));
    Ranking by = Ranking.parse(q.getOrDefault("by", "pending"));
    List<TargetDemand> top = new ArrayList<>();
    List<String> instances = new ArrayList<>();
    List<String> unavailable = new ArrayList<>();
    if (isLocal(q)) {
      top.addAll(localTop(n, by));
      instances.add(store.self());
    } else {
      try {
        top.addAll(localTop(n, by));
        instances.add(store.self());
      } catch (StoreUnavailableException e) {
        unavailable.add(store.self());
      }
      Peers.Gathered g =
          peers.gather(
              store.peers(), "/api/v1/demand/top?n=" + n + "&by=" + by.wire() + "&scope=local");
      for (JsonNode reply : g.replies()) {
        reply.path("targets").forEach(t -> top.add(TargetDemand.fromJson(t)));
        reply.path("instances").forEach(i -> instances.add(i.asText()));
      }
      unavailable.addAll(g.unavailable());
      top.sort(by.order());
    }
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("by", by.wire());
    o.put("n", n);
    o.put("now_ms", System.currentTimeMillis());
    instances.forEach(o.putArray("instances")::add);
    unavailable.forEach(o.putArray("unavailable")::add);
    ArrayNode targets = o.putArray("targets");
    top.stream().limit(n).forEach(t -> targets.add(t.toJson()));
    Replies.json(ex, 200, o);
  }

  /** This instance's first {@code n} targets, from a read of its stores at most 1 s old. */
  private List<TargetDemand> localTop(int n, Ranking by) {
    return tables.get().top(by, n);
  }

  static boolean isLocal(Map<String, String> q) {
    String scope = q.getOrDefault("scope", "cluster");
    if (!scope.equals("local") && !scope.equals("cluster")) {
      throw ApiException.badRequest(
          "parameter 'scope' is '" + scope + "'; expected cluster or local");
    }
    return scope.equals("local");
  }

  private static int count(String s) {
    int n;
    try {
      n = Integer.parseInt(s);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > MAX_TOP) {
      throw ApiException.badRequest("parameter 'n' is '" + s + "'; expected 1.." + MAX_TOP);
    }
    return n;
  }
}
