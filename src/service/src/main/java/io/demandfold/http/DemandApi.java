package io.demandfold.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.Limits;
import io.demandfold.core.Printable;
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
  static final int DEFAULT_PAGE = 1000;
  static final int MAX_PAGE = 10_000;

  private final DemandStore store;
  private final Peers peers;
  private final TableSnapshots tables;

  DemandApi(DemandStore store, Peers peers, TableSnapshots tables) {
    this.store = store;
    this.peers = peers;
    this.tables = tables;
  }

  /**
   * A page of a target's shard views, gathered from every instance (shard records are partitioned
   * by shard, so any instance may hold some of a target's shards), with the table stage's view of
   * the whole target. {@code limit} shards at most (default {@link #DEFAULT_PAGE}), those after
   * {@code after}; {@code next} names the {@code after} of the next page, {@code null} on the last.
   * {@code scope=local} answers with this instance's shards and table view only (200, possibly
   * none).
   */
  void demand(Exchange ex) throws IOException, InterruptedException {
    Map<String, String> q = Replies.query(ex, Set.of("target", "scope", "limit", "after"));
    String target = q.get("target");
    if (target == null || target.isEmpty()) {
      throw ApiException.badRequest("parameter 'target' is required");
    }
    if (target.getBytes(StandardCharsets.UTF_8).length > Limits.MAX_TARGET_BYTES) {
      throw ApiException.badRequest(
          "parameter 'target' is longer than " + Limits.MAX_TARGET_BYTES + " UTF-8 bytes");
    }
    int limit = count("limit", q.getOrDefault("limit", String.valueOf(DEFAULT_PAGE)), MAX_PAGE);
    String after = q.get("after");
    String hex = Keys.hex(target);
    boolean local = isLocal(q);
    Page page = new Page(limit);
    List<ShardRecord> own = store.shards(hex, after, limit);
    page.add(own);
    TableView table = store.table(hex);
    List<String> instances = new ArrayList<>(List.of(store.self()));
    if (!local) {
      Peers.Gathered<Part> g =
          peers.gather(
              store.peers(),
              "/api/v1/demand?target="
                  + URLEncoder.encode(target, StandardCharsets.UTF_8)
                  + "&limit="
                  + limit
                  + (after == null
                      ? ""
                      : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8))
                  + "&scope=local",
              Peers.replyBound(limit + 1, Peers.LINE_BYTES),
              Part::read);
      if (!g.unavailable().isEmpty()) {
        throw new ApiException(
            502,
            "instance(s) "
                + String.join(", ", g.unavailable())
                + " may hold shards of this target but did not answer ("
                + g.why()
                + ")");
      }
      for (Part part : g.replies()) {
        instances.add(part.instance());
        page.add(part.shards());
        if (table == null) {
          table = part.table();
        }
      }
    }
    List<ShardRecord> shards = page.shards();
    String next = page.next();
    if (table == null && !local && next == null && after == null && !shards.isEmpty()) {
      // the table stage has not written its view yet (it does so every table.interval.ms): the
      // whole target is at hand
      table = TableView.of(shards);
    }
    if (shards.isEmpty() && table == null && after == null && !local) {
      throw ApiException.notFound("no demand known for target '" + Keys.abbreviate(target) + "'");
    }
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("target", target);
    o.put("hex", hex);
    o.put("instance", store.self());
    instances.forEach(o.putArray("instances")::add);
    o.put("now_ms", System.currentTimeMillis());
    if (table == null) {
      o.putNull("table");
      o.putNull("oldest_pending_bound");
    } else {
      TargetDemand demand = new TargetDemand(target, table);
      o.set("table", Replies.JSON.readTree(ViewJson.tableLine(target, table)));
      o.put("oldest_pending_bound", demand.bound());
    }
    ArrayNode lines = o.putArray("shards");
    for (ShardRecord r : shards) {
      lines.add(Replies.JSON.readTree(ViewJson.shardLine(target, r)));
    }
    o.put("limit", limit);
    if (next == null) {
      o.putNull("next");
    } else {
      o.put("next", next);
    }
    Replies.json(ex, 200, o);
  }

  /** Another instance's local part of {@code demand}: its shards and its table view, or null. */
  record Part(String instance, List<ShardRecord> shards, TableView table) {
    /**
     * Reads a reply strictly: a missing field or one of another type, a shard record that is not
     * one or of a newer schema, refuses it.
     */
    static Part read(JsonNode reply) {
      List<ShardRecord> shards = new ArrayList<>();
      for (JsonNode line : ReplyFields.array(reply, "shards")) {
        JsonNode record = ReplyFields.object(line, "record");
        try {
          shards.add(JsonCodec.decodeRecord(Replies.JSON.writeValueAsBytes(record)));
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException("a shard record: " + e.getOriginalMessage(), e);
        } catch (InvalidEventException e) {
          throw new IllegalArgumentException("a shard record: " + e.getMessage(), e);
        }
      }
      JsonNode t = reply.get("table");
      TableView table = t == null || t.isNull() ? null : TargetDemand.fromJson(t).view();
      return new Part(ReplyFields.text(reply, "instance"), shards, table);
    }
  }

  /**
   * One page of shards merged from several instances' pages. Each instance gives its first {@code
   * limit} shards in order; one that gave a full page may hold more after its last, so the merged
   * page ends at the earliest such last shard (or after {@code limit} shards), and only then is
   * there a next page.
   */
  static final class Page {
    private final int limit;
    private final TreeMap<String, ShardRecord> merged = new TreeMap<>(Keys.UTF8_ORDER);
    private String bound;

    Page(int limit) {
      this.limit = limit;
    }

    void add(List<ShardRecord> page) {
      for (ShardRecord r : page) {
        merged.merge(r.shard(), r, Join::join);
      }
      if (page.size() >= limit) {
        String last = page.get(page.size() - 1).shard();
        if (bound == null || Keys.UTF8_ORDER.compare(last, bound) < 0) {
          bound = last;
        }
      }
    }

    List<ShardRecord> shards() {
      var upTo = bound == null ? merged : merged.headMap(bound, true);
      return upTo.values().stream().limit(limit).toList();
    }

    /** The {@code after} of the next page, or {@code null} when this is the last. */
    String next() {
      var upTo = bound == null ? merged : merged.headMap(bound, true);
      if (bound == null && upTo.size() <= limit) {
        return null;
      }
      List<ShardRecord> page = shards();
      return page.get(page.size() - 1).shard();
    }
  }

  /** The top {@code n} targets with pending generations, by {@code by}, over every instance. */
  void top(Exchange ex) throws IOException, InterruptedException {
    Map<String, String> q = Replies.query(ex, Set.of("n", "by", "scope"));
    int n = count("n", q.getOrDefault("n", String.valueOf(DEFAULT_TOP)), MAX_TOP);
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
      Peers.Gathered<TopPart> g =
          peers.gather(
              store.peers(),
              "/api/v1/demand/top?n=" + n + "&by=" + by.wire() + "&scope=local",
              Peers.replyBound(n, Peers.LINE_BYTES),
              TopPart::read);
      for (TopPart reply : g.replies()) {
        top.addAll(reply.targets());
        instances.addAll(reply.instances());
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

  /** Another instance's part of {@code top} (or {@code queue}): its instances and targets. */
  record TopPart(List<String> instances, List<TargetDemand> targets) {
    static TopPart read(JsonNode reply) {
      return read(reply, "targets");
    }

    /** Reads {@code field}, a list of target entries, and {@code instances}, strictly. */
    static TopPart read(JsonNode reply, String field) {
      List<TargetDemand> targets = new ArrayList<>();
      for (JsonNode t : ReplyFields.array(reply, field)) {
        targets.add(TargetDemand.fromJson(t));
      }
      return new TopPart(ReplyFields.texts(reply, "instances"), targets);
    }
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

  static int count(String name, String s, int max) {
    int n;
    try {
      n = Integer.parseInt(s);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > max) {
      throw ApiException.badRequest(
          "parameter '" + name + "' is '" + Printable.escape(s) + "'; expected 1.." + max);
    }
    return n;
  }
}
