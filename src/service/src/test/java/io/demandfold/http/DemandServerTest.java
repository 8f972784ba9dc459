package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.http.DemandStore.Vitals;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP API over in-memory stores: answers, orders, forwarding, errors, health, pages. */
class DemandServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final long T = 1_764_400_000_000L;

  private final List<DemandServer> servers = new ArrayList<>();

  @AfterEach
  void closeServers() {
    servers.forEach(DemandServer::close);
  }

  /** orders: 2 shards, 30 pending, exact; logs: 50 pending, upper bound; idle: none pending. */
  private static FakeStore fleet() {
    ShardRecord upper =
        Events.writer("a", 60, 10, 1, T).toBuilder()
            .sealedBytesThrough(100)
            .sealedTime(40, T - 9_000)
            .build();
    return new FakeStore()
        .hold(
            "orders",
            Events.writer("s1", 20, 1, T).toBuilder()
                .sealedTime(1, T - 5_000)
                .sealedBytesThrough(7000)
                .build(),
            Events.writer("s0", 10, 1, T).toBuilder()
                .sealedTime(1, T - 1_000)
                .sealedBytesThrough(5000)
                .build())
        .hold("logs", upper)
        .hold("idle", Events.writer("z", 5, 5, 1, T));
  }

  private URI serve(FakeStore store, EtcdProbe probe, PrometheusMeterRegistry registry)
      throws Exception {
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    store.self = s.advertisedAddress();
    s.serve(store, probe, registry);
    return s.url();
  }

  private URI serve(FakeStore store) throws Exception {
    return serve(store, () -> {}, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
  }

  private static HttpResponse<String> get(URI base, String path) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body());
  }

  private static String demand(String target) {
    return "api/v1/demand?target=" + URLEncoder.encode(target, StandardCharsets.UTF_8);
  }

  @Test
  void shouldNameTheAddressItCannotListenOn() throws Exception {
    DemandServer first = DemandServer.bind("127.0.0.1", 0);
    servers.add(first);
    int port = first.address().getPort();
    assertThatThrownBy(() -> DemandServer.bind("127.0.0.1", port))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port + ": ")
        .hasMessageContaining("in use");
    assertThatThrownBy(() -> DemandServer.bind("no-such-host.invalid", 0))
        .hasMessage("cannot resolve http.host 'no-such-host.invalid'");
  }

  @Test
  void shouldAnswerATargetWithTheFoldLinesOfItsTableAndShards() throws Exception {
    FakeStore store = fleet();
    URI base = serve(store);
    HttpResponse<String> r = get(base, demand("orders"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue(Replies.JSON_TYPE);
    JsonNode j = json(r);
    List<ShardRecord> shards = store.held.get(Keys.hex("orders"));
    assertThat(j.get("table"))
        .isEqualTo(JSON.readTree(ViewJson.tableLine("orders", TableView.of(shards))));
    assertThat(j.get("shards")).hasSize(2);
    assertThat(j.at("/shards/0/shard").asText()).isEqualTo("s0");
    assertThat(j.at("/shards/1"))
        .isEqualTo(JSON.readTree(ViewJson.shardLine("orders", shards.get(1))));
    assertThat(j.get("oldest_pending_bound").asText()).isEqualTo("exact");
    assertThat(j.get("instance").asText()).isEqualTo(store.self());
    assertThat(json(get(base, demand("logs"))).get("oldest_pending_bound").asText())
        .isEqualTo("upper");
  }

  @Test
  void shouldRankTargetsWithPendingGenerationsByPendingAgeOrBytes() throws Exception {
    URI base = serve(fleet());
    assertThat(targets(get(base, "api/v1/demand/top"))).containsExactly("logs", "orders");
    assertThat(targets(get(base, "api/v1/demand/top?by=age"))).containsExactly("logs", "orders");
    assertThat(targets(get(base, "api/v1/demand/top?by=bytes&n=5")))
        .containsExactly("orders", "logs");
    assertThat(targets(get(base, "api/v1/demand/top?n=1&by=bytes"))).containsExactly("orders");
    JsonNode logs = json(get(base, "api/v1/demand/top?n=1")).at("/targets/0");
    assertThat(logs.get("pending_generations").asLong()).isEqualTo(50);
    assertThat(logs.get("oldest_pending_bound").asText()).isEqualTo("upper");
    assertThat(logs.get("oldest_pending_exact_ms").isNull()).isTrue();
  }

  @Test
  void shouldGatherATargetsShardsTopAndSummaryFromEveryInstance() throws Exception {
    FakeStore b =
        new FakeStore()
            .hold("remote", Events.writer("r", 99, 1, T))
            .hold("orders", Events.writer("s9", 4, 1, T));
    b.vitals = new Vitals("RUNNING", 3, 10, 1, 0, 2.5, 0);
    URI bUrl = serve(b);
    FakeStore a = fleet();
    URI aUrl = serve(a);
    a.peers = List.of(b.self());
    b.peers = List.of(a.self());

    HttpResponse<String> r = get(aUrl, demand("remote"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).get("instance").asText()).isEqualTo(a.self());
    assertThat(json(r).get("instances"))
        .extracting(JsonNode::asText)
        .containsExactly(a.self(), b.self());
    assertThat(json(r).at("/shards/0/shard").asText()).isEqualTo("r");
    JsonNode orders = json(get(bUrl, demand("orders")));
    assertThat(orders.get("shards"))
        .extracting(s -> s.get("shard").asText())
        .containsExactly("s0", "s1", "s9");
    List<ShardRecord> all = new java.util.ArrayList<>(a.held.get(Keys.hex("orders")));
    all.add(Events.writer("s9", 4, 1, T));
    assertThat(orders.get("table"))
        .isEqualTo(JSON.readTree(ViewJson.tableLine("orders", TableView.of(all))));
    JsonNode local = json(get(bUrl, demand("orders") + "&scope=local"));
    assertThat(local.get("shards")).hasSize(1);
    assertThat(json(get(bUrl, "api/v1/demand?target=nothing-here&scope=local")).get("shards"))
        .isEmpty();

    assertThat(targets(get(aUrl, "api/v1/demand/top?n=2"))).containsExactly("remote", "logs");
    JsonNode summary = json(get(bUrl, "api/v1/summary"));
    assertThat(summary.get("pending_generations").asLong()).isEqualTo(99 + 4 + 50 + 30);
    assertThat(summary.get("dlq_total").asLong()).isEqualTo(3);
    assertThat(summary.at("/mirror/lag_seconds/shard").asDouble()).isEqualTo(2.5);
    assertThat(summary.get("instances")).hasSize(2);

    a.peers = List.of(b.self(), "127.0.0.1:1");
    HttpResponse<String> partial = get(aUrl, demand("remote"));
    assertThat(partial.statusCode()).as("an answer without some instance's shards").isEqualTo(502);
    assertThat(json(partial).get("message").asText()).contains("127.0.0.1:1");
  }

  @Test
  void shouldQueueTargetsInUrgencyClassesOverEveryInstance() throws Exception {
    long hourAgo = T - 3_600_000;
    FakeStore a =
        new FakeStore()
            .hold("critical", Events.writer("c", 300, 1, T).toBuilder().sealedTime(1, T).build())
            .hold("due", Events.writer("d", 9, 1, T).toBuilder().sealedTime(1, T).build())
            .hold("aged", Events.writer("a", 2, 1, T).toBuilder().sealedTime(1, hourAgo).build())
            .hold(
                "upper",
                Events.writer("u", 3, 1, T).toBuilder().sealedTime(3, hourAgo - 1000).build())
            .hold("small", Events.writer("s", 1, 1, T).toBuilder().sealedTime(1, T).build())
            .hold("idle", Events.writer("z", 5, 5, 1, T));
    FakeStore b = new FakeStore().hold("remote", Events.writer("r", 500, 1, T));
    URI aUrl = serveAt(a, T);
    URI bUrl = serveAt(b, T);
    a.peers = List.of(b.self());
    b.peers = List.of(a.self());

    JsonNode q = json(get(aUrl, "api/v1/queue"));
    assertThat(q.get("tables"))
        .extracting(t -> t.get("target").asText() + ":" + t.get("class").asText())
        .containsExactly(
            "remote:critical",
            "critical:critical",
            "due:due",
            "aged:due",
            "upper:pending",
            "small:pending");
    assertThat(q.get("counts"))
        .isEqualTo(JSON.readTree("{\"critical\":2,\"due\":2,\"pending\":2}"));
    assertThat(q.get("classes"))
        .isEqualTo(
            JSON.readTree(
                "{\"due_generations\":8,\"critical_generations\":256,\"max_age_ms\":3600000}"));
    assertThat(q.get("instances")).hasSize(2);
    JsonNode aged = q.at("/tables/3");
    assertThat(aged.get("oldest_pending_exact_ms").asLong()).isEqualTo(hourAgo);
    assertThat(aged.get("oldest_pending_bound").asText()).isEqualTo("exact");
    assertThat(q.at("/tables/4/oldest_pending_bound").asText()).isEqualTo("upper");

    assertThat(json(get(aUrl, "api/v1/queue?limit=2")).get("tables"))
        .extracting(t -> t.get("target").asText())
        .containsExactly("remote", "critical");
    JsonNode local = json(get(bUrl, "api/v1/queue?scope=local"));
    assertThat(local.get("tables"))
        .extracting(t -> t.get("target").asText())
        .containsExactly("remote");
    assertThat(local.at("/counts/critical").asLong()).isEqualTo(1);
    HttpResponse<String> bad = get(aUrl, "api/v1/queue?limit=0");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(json(bad).get("message").asText()).contains("'limit'");
  }

  private URI serveAt(FakeStore store, long nowMs) throws Exception {
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    store.self = s.advertisedAddress();
    s.clock(() -> nowMs);
    s.serve(store, () -> {}, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    return s.url();
  }

  @Test
  void shouldPageThroughATargetsShardsSpreadOverInstancesInShardOrder() throws Exception {
    // 25 shards, dealt unevenly: a holds every third, b the rest, so their pages end apart
    List<ShardRecord> onA = new ArrayList<>();
    List<ShardRecord> onB = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      String shard = String.format("s%02d", i);
      expected.add(shard);
      (i % 3 == 0 ? onA : onB).add(Events.writer(shard, i + 1, 1, T));
    }
    FakeStore a = new FakeStore().hold("wide", onA.toArray(ShardRecord[]::new));
    FakeStore b = new FakeStore().hold("wide", onB.toArray(ShardRecord[]::new));
    List<ShardRecord> all = new ArrayList<>(onA);
    all.addAll(onB);
    TableView whole = TableView.of(all);
    b.tableViews.put(Keys.hex("wide"), whole);
    URI aUrl = serve(a);
    serve(b);
    a.peers = List.of(b.self());
    b.peers = List.of(a.self());

    List<String> seen = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      JsonNode page =
          json(
              get(
                  aUrl,
                  demand("wide")
                      + "&limit=4"
                      + (after == null
                          ? ""
                          : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8))));
      assertThat(page.get("shards").size()).isBetween(1, 4);
      page.get("shards").forEach(s -> seen.add(s.get("shard").asText()));
      // every page carries the table stage's view of the whole target, held by b
      assertThat(page.get("table")).isEqualTo(JSON.readTree(ViewJson.tableLine("wide", whole)));
      assertThat(page.get("limit").asInt()).isEqualTo(4);
      after = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (after != null && pages < 50);
    assertThat(seen).containsExactlyElementsOf(expected);
    assertThat(pages).isBetween(7, 13);

    JsonNode one = json(get(aUrl, demand("wide") + "&limit=1000"));
    assertThat(one.get("shards")).hasSize(25);
    assertThat(one.get("next").isNull()).isTrue();
    for (String bad : List.of("0", "10001", "x")) {
      HttpResponse<String> r = get(aUrl, demand("wide") + "&limit=" + bad);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      assertThat(json(r).get("message").asText()).contains("'limit'", "1..10000");
    }
  }

  @Test
  void shouldListAnInstanceThatDoesNotAnswerAsUnavailable() throws Exception {
    FakeStore a = fleet();
    URI base = serve(a);
    a.peers = List.of("127.0.0.1:1");
    JsonNode top = json(get(base, "api/v1/demand/top"));
    assertThat(top.get("unavailable")).extracting(JsonNode::asText).containsExactly("127.0.0.1:1");
    assertThat(top.get("targets")).hasSize(2);
    HttpResponse<String> r = get(base, demand("orders"));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(json(r).get("error").asText()).isEqualTo("bad_gateway");
  }

  @Test
  void shouldAnswerBadRequestsWithJsonErrors() throws Exception {
    FakeStore store = fleet();
    URI base = serve(store);
    for (String path :
        List.of(
            "api/v1/demand",
            "api/v1/demand?target=",
            "api/v1/demand?target=a&target=b",
            "api/v1/demand?target=a&x=1",
            "api/v1/demand?target=" + "t".repeat(1025),
            "api/v1/demand/top?n=0",
            "api/v1/demand/top?n=1001",
            "api/v1/demand/top?n=ten",
            "api/v1/demand/top?by=size",
            "api/v1/summary?scope=all")) {
      HttpResponse<String> r = get(base, path);
      assertThat(r.statusCode()).as(path).isEqualTo(400);
      assertThat(json(r).get("error").asText()).isEqualTo("bad_request");
      assertThat(json(r).get("message").asText()).as(path).isNotBlank();
    }
    HttpResponse<String> unknown = get(base, demand("nope \"quoted\""));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json(unknown).get("message").asText()).contains("nope \"quoted\"");
    assertThat(get(base, "api/v1/nothing").statusCode()).isEqualTo(404);
    assertThat(get(base, "api/v1/demand/top/x").statusCode()).isEqualTo(404);
    HttpResponse<String> post =
        CLIENT.send(
            HttpRequest.newBuilder(base.resolve("api/v1/summary"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");

    store.unavailable = true;
    HttpResponse<String> moving = get(base, demand("orders"));
    assertThat(moving.statusCode()).isEqualTo(503);
    assertThat(moving.headers().firstValue("Retry-After")).hasValue("1");
  }

  @Test
  void shouldBeReadyOnlyWhileRunningWithEtcdReachable() throws Exception {
    FakeStore store = fleet();
    AtomicBoolean etcdUp = new AtomicBoolean(true);
    URI base =
        serve(
            store,
            () -> {
              if (!etcdUp.get()) {
                throw new java.io.IOException("connection refused");
              }
            },
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    assertThat(get(base, "readyz").statusCode()).isEqualTo(200);
    assertThat(json(get(base, "readyz")).get("etcd").asText()).isEqualTo("reachable");
    store.vitals = new Vitals("REBALANCING", 0, 0, 0, 0, 0, 0);
    HttpResponse<String> rebalancing = get(base, "readyz");
    assertThat(rebalancing.statusCode()).isEqualTo(503);
    assertThat(json(rebalancing).get("streams").asText()).isEqualTo("REBALANCING");
    store.vitals = new Vitals("RUNNING", 0, 0, 0, 0, 0, 0);
    etcdUp.set(false);
    Thread.sleep(1100); // the probe runs at most once a second
    HttpResponse<String> noEtcd = get(base, "readyz");
    assertThat(noEtcd.statusCode()).isEqualTo(503);
    assertThat(json(noEtcd).get("etcd").asText()).startsWith("unreachable").contains("refused");
    assertThat(get(base, "healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void shouldServeTheDashboardAndCountRequestsInMetrics() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    URI base = serve(fleet(), null, registry);
    HttpResponse<String> page = get(base, "");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.body()).contains("<script src=\"dashboard.js\">").contains("id=\"top-body\"");
    assertThat(get(base, "dashboard.js").body()).contains("api/v1/demand/top");
    assertThat(get(base, "dashboard.css").statusCode()).isEqualTo(200);
    assertThat(json(get(base, "readyz")).get("etcd").asText()).isEqualTo("disabled");
    HttpResponse<String> metrics = get(base, "metrics");
    assertThat(metrics.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    assertThat(metrics.body())
        .contains(
            "demandfold_http_requests_seconds_count{endpoint=\"dashboard\",status=\"200\"} 3") // page, script, style sheet
        .contains("demandfold_http_requests_seconds_count{endpoint=\"readyz\",status=\"200\"} 1");
  }

  @Test
  void shouldServeTheLastHourOfTotalsSummedOverInstancesAndTheDemandGauges() throws Exception {
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(T);
    FakeStore a = fleet();
    FakeStore b = new FakeStore().hold("remote", Events.writer("r", 99, 1, T - 60_000));
    DemandHistory ha = new DemandHistory(a, now::get);
    DemandHistory hb = new DemandHistory(b, now::get);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    URI aUrl = serve(a, registry, ha);
    serve(b, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), hb);
    a.peers = List.of(b.self());
    b.peers = List.of(a.self());
    ha.sample(); // a: 80 pending at T
    hb.sample(); // b: 99 pending at T
    now.addAndGet(DemandHistory.STEP_MS);
    ha.sample(); // b missed this step
    now.addAndGet(DemandHistory.STEP_MS);
    b.hold("remote", Events.writer("r", 100, 1, T - 60_000));
    ha.sample();
    hb.sample();

    JsonNode local = json(get(aUrl, "api/v1/history?scope=local"));
    assertThat(local.get("instance").asText()).isEqualTo(a.self());
    assertThat(local.get("step_ms").asLong()).isEqualTo(5000);
    assertThat(local.get("points")).hasSize(3);
    JsonNode all = json(get(aUrl, "api/v1/history"));
    assertThat(all.get("instances"))
        .extracting(JsonNode::asText)
        .containsExactly(a.self(), b.self());
    assertThat(all.get("points"))
        .extracting(p -> p.get("t_ms").asLong() - T, p -> p.get("pending_generations").asLong())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0L, 80L + 99),
            org.assertj.core.groups.Tuple.tuple(5000L, 80L),
            org.assertj.core.groups.Tuple.tuple(10000L, 80L + 100));
    long bytesOfB =
        json(get(aUrl, "api/v1/summary")).get("pending_bytes").asLong()
            - 12_100; // a: orders 12,000, logs 100
    assertThat(all.at("/points/1/pending_bytes").asLong()).isEqualTo(12_100);
    assertThat(all.at("/points/2/pending_bytes").asLong()).isEqualTo(12_100 + bytesOfB);
    assertThat(get(aUrl, "api/v1/history?scope=all").statusCode()).isEqualTo(400);

    // gauges of the newest sample (taken at T + 10 s); orders' exact oldest flush is at T - 5 s
    assertThat(get(aUrl, "metrics").body())
        .contains("demandfold_pending_generations 80.0")
        .contains("demandfold_pending_bytes 12100.0")
        .contains("demandfold_targets_pending 2.0")
        .contains("demandfold_oldest_pending_exact_age_seconds 15.0");
    a.unavailable = true;
    ha.sample();
    assertThat(get(aUrl, "metrics").body()).contains("demandfold_pending_generations NaN");
  }

  private URI serve(FakeStore store, PrometheusMeterRegistry registry, DemandHistory history)
      throws Exception {
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    store.self = s.advertisedAddress();
    s.serve(store, () -> {}, registry, history);
    return s.url();
  }

  private static List<String> targets(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    json(r).get("targets").forEach(t -> out.add(t.get("target").asText()));
    return out;
  }
}
