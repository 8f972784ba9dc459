package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.TreeMap;

/**
 * {@code GET /api/v1/history}: the totals of the last hour at 5 s steps ({@link DemandHistory}),
 * summed per step over every instance that answers; {@code scope=local}: this instance's own.
 */
final class HistoryApi {
  private final DemandStore store;
  private final Peers peers;
  private final DemandHistory history;

  HistoryApi(DemandStore store, Peers peers, DemandHistory history) {
    this.store = store;
    this.peers = peers;
    this.history = history;
  }

  void history(Exchange ex) throws IOException, InterruptedException {
    InstanceSums.answer(
        ex,
        store,
        peers,
        "/api/v1/history",
        Peers.replyBound(DemandHistory.CAPACITY, Peers.POINT_BYTES),
        this::local,
        HistoryApi::checked,
        HistoryApi::sum);
  }

  /** The totals of every part, summed per step. */
  private static ObjectNode sum(List<JsonNode> parts, List<String> unavailable) {
    TreeMap<Long, long[]> sums = new TreeMap<>();
    for (JsonNode part : parts) {
      for (JsonNode p : part.get("points")) {
        long[] sum = sums.computeIfAbsent(p.get("t_ms").asLong(), t -> new long[2]);
        sum[0] = saturatedAdd(sum[0], p.get("pending_generations").asLong());
        sum[1] = saturatedAdd(sum[1], p.get("pending_bytes").asLong());
      }
    }
    ObjectNode o = header();
    ArrayNode instances = o.putArray("instances");
    parts.forEach(p -> instances.add(p.get("instance").asText()));
    unavailable.forEach(o.putArray("unavailable")::add);
    ArrayNode points = o.putArray("points");
    sums.forEach((t, sum) -> point(points, t, sum[0], sum[1]));
    return o;
  }

  /** Another instance's part once its fields are checked: an instance and points of numbers. */
  private static JsonNode checked(JsonNode part) {
    ReplyFields.text(part, "instance");
    for (JsonNode p : ReplyFields.array(part, "points")) {
      for (String f : List.of("t_ms", "pending_generations", "pending_bytes")) {
        ReplyFields.integer(p, f);
      }
    }
    return part;
  }

  private ObjectNode local() {
    ObjectNode o = header();
    o.put("instance", store.self());
    ArrayNode points = o.putArray("points");
    for (DemandHistory.Sample s : history.samples()) {
      point(points, s.stepMs(), s.totals().pendingGenerations(), s.totals().pendingBytes());
    }
    return o;
  }

  private static ObjectNode header() {
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("now_ms", System.currentTimeMillis());
    o.put("step_ms", DemandHistory.STEP_MS);
    o.put("span_ms", DemandHistory.STEP_MS * DemandHistory.CAPACITY);
    return o;
  }

  private static void point(ArrayNode points, long t, long pending, long bytes) {
    points
        .addObject()
        .put("t_ms", t)
        .put("pending_generations", pending)
        .put("pending_bytes", bytes);
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }
}
