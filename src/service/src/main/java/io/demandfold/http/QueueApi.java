package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.demandfold.core.DemandClasses;
import io.demandfold.core.Urgency;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code GET /api/v1/queue?limit=}: the targets with pending generations over every instance, in
 * the order of urgency of {@link DemandClasses#defaults()} (the classes of {@code DemandView}):
 * class (critical, due, pending), then pending generations, then the exact oldest pending time,
 * then pending bytes, then the target; with how many targets each class holds.
 */
final class QueueApi {
  static final int DEFAULT_LIMIT = 100;

  private final DemandStore store;
  private final Peers peers;
  private final TableSnapshots tables;
  private final DemandClasses classes = DemandClasses.defaults();

  QueueApi(DemandStore store, Peers peers, TableSnapshots tables) {
    this.store = store;
    this.peers = peers;
    this.tables = tables;
  }

  /** Another instance's part: its instances, first tables and the targets of each class. */
  record Part(DemandApi.TopPart tables, Map<Urgency, Long> counts) {
    static Part read(JsonNode reply) {
      JsonNode c = ReplyFields.object(reply, "counts");
      Map<Urgency, Long> counts = new EnumMap<>(Urgency.class);
      for (Urgency u : List.of(Urgency.CRITICAL, Urgency.DUE, Urgency.PENDING)) {
        counts.put(u, ReplyFields.integer(c, u.wire()));
      }
      return new Part(DemandApi.TopPart.read(reply, "tables"), counts);
    }
  }

  void queue(Exchange ex) throws IOException, InterruptedException {
    Map<String, String> q = Replies.query(ex, Set.of("limit", "scope"));
    int limit =
        DemandApi.count(
            "limit", q.getOrDefault("limit", String.valueOf(DEFAULT_LIMIT)), DemandApi.MAX_TOP);
    List<TargetDemand> queue = new ArrayList<>();
    Map<Urgency, Long> counts = new EnumMap<>(Urgency.class);
    List<String> instances = new ArrayList<>();
    List<String> unavailable = new ArrayList<>();
    boolean local = DemandApi.isLocal(q);
    try {
      TableSnapshots.Snapshot s = tables.get();
      queue.addAll(s.queue().subList(0, Math.min(limit, s.queue().size())));
      s.classCounts().forEach((u, n) -> counts.merge(u, n, Long::sum));
      instances.add(store.self());
    } catch (StoreUnavailableException e) {
      if (local) {
        throw e;
      }
      unavailable.add(store.self());
    }
    if (!local) {
      Peers.Gathered<Part> g =
          peers.gather(
              store.peers(),
              "/api/v1/queue?limit=" + limit + "&scope=local",
              Peers.replyBound(limit, Peers.LINE_BYTES),
              Part::read);
      for (Part reply : g.replies()) {
        queue.addAll(reply.tables().targets());
        instances.addAll(reply.tables().instances());
        reply.counts().forEach((u, n) -> counts.merge(u, n, Long::sum));
      }
      unavailable.addAll(g.unavailable());
    }
    long now = tables.nowMs();
    queue.sort(classes.urgencyOrder(TargetDemand::view, TargetDemand::target, now));
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("now_ms", now);
    o.put("limit", limit);
    o.putObject("classes")
        .put("due_generations", classes.dueGenerations())
        .put("critical_generations", classes.criticalGenerations())
        .put("max_age_ms", classes.maxAge().toMillis());
    ObjectNode c = o.putObject("counts");
    for (Urgency u : List.of(Urgency.CRITICAL, Urgency.DUE, Urgency.PENDING)) {
      c.put(u.wire(), counts.getOrDefault(u, 0L));
    }
    instances.forEach(o.putArray("instances")::add);
    unavailable.forEach(o.putArray("unavailable")::add);
    ArrayNode out = o.putArray("tables");
    queue.stream()
        .limit(limit)
        .forEach(
            t -> {
              ObjectNode j = Replies.JSON.createObjectNode();
              j.put("target", t.target());
              j.put("class", classes.classify(t.view(), now).wire());
              t.toJson().properties().forEach(e -> j.set(e.getKey(), e.getValue()));
              out.add(j);
            });
    Replies.json(ex, 200, o);
  }
}
