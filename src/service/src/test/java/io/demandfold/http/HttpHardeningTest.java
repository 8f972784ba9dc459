package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.demandfold.core.Events;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP server against hostile pages and slow peers: the Host header is checked (DNS rebinding),
 * a peer's reply is never relayed as it is, health checks do not wait behind requests that wait for
 * peers, and {@code /top} and {@code /summary} read the store at most once a second.
 */
class HttpHardeningTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final long T = 1_764_400_000_000L;

  private final List<DemandServer> servers = new ArrayList<>();
  private final List<HttpServer> fakes = new ArrayList<>();

  @AfterEach
  void close() {
    servers.forEach(DemandServer::close);
    fakes.forEach(f -> f.stop(0));
  }

  private static FakeStore store() {
    return new FakeStore()
        .hold("orders", Events.writer("s1", 20, 1, T), Events.writer("s2", 7, 1, T))
        .hold("logs", Events.writer("a", 60, 10, 1, T));
  }

  private DemandServer server(FakeStore store, String self, List<String> allowed) throws Exception {
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    store.self = self == null ? s.advertisedAddress() : self;
    s.serve(store, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), allowed);
    return s;
  }

  @Test
  void shouldRefuseARequestNamingAHostThisInstanceDoesNotAnswerTo() throws Exception {
    DemandServer s = server(store(), "demandfold-1.internal:8080", List.of("Dashboard.Example"));
    int port = s.address().getPort();
    for (String host :
        List.of(
            "127.0.0.1:" + port,
            "localhost:" + port,
            "LOCALHOST",
            "[::1]:" + port,
            "10.1.2.3:8080",
            "demandfold-1.internal:8080",
            "dashboard.example",
            "dashboard.example.:443")) {
      Raw r = raw(s, "/api/v1/summary", host);
      assertThat(r.status).as(host).isEqualTo(200);
    }
    for (String host :
        List.of(
            "attacker.example:" + port,
            "attacker.example",
            "127.0.0.1.attacker.example:" + port,
            "localhost.attacker.example",
            "demandfold-1.internal.attacker.example")) {
      for (String path : List.of("/api/v1/summary", "/healthz", "/metrics", "/")) {
        Raw r = raw(s, path, host);
        assertThat(r.status).as(host + " " + path).isEqualTo(421);
        assertThat(r.head).containsIgnoringCase("Content-Type: application/json");
        JsonNode error = JSON.readTree(r.body);
        assertThat(error.get("error").asText()).isEqualTo("misdirected_request");
        assertThat(error.get("message").asText()).contains("http.allowed.hosts");
      }
    }
    assertThat(raw(s, "/healthz", null).status).as("no Host header: not a browser").isEqualTo(200);
  }

  @Test
  void shouldNeverRelayAPeersContentTypeOrAnAnswerThatIsNotJson() throws Exception {
    String html =
        "{\"instance\":\"<script>alert(1)</script>\",\"targets\":1,\"targets_pending\":1,"
            + "\"pending_generations\":1000,\"pending_bytes\":1,\"dlq_total\":0,"
            + "\"events_folded\":0,\"shards\":[]}";
    String peer = fakePeer("text/html; charset=utf-8", html, null);
    FakeStore a = store();
    DemandServer s = server(a, null, List.of());
    a.peers = List.of(peer);

    HttpResponse<String> summary = get(s.url(), "api/v1/summary");
    assertThat(summary.statusCode()).isEqualTo(200);
    JsonNode j = JSON.readTree(summary.body());
    assertThat(j.get("unavailable")).extracting(JsonNode::asText).containsExactly(peer);
    assertThat(summary.headers().firstValue("Content-Type")).hasValue(Replies.JSON_TYPE);
    assertThat(summary.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(j.get("pending_generations").asLong())
        .as("only this instance's part")
        .isEqualTo(
            JSON.readTree(get(s.url(), "api/v1/summary?scope=local").body())
                .get("pending_generations")
                .asLong());
    assertThat(summary.body()).doesNotContain("<script>");

    HttpResponse<String> demand = get(s.url(), "api/v1/demand?target=orders");
    assertThat(demand.statusCode()).isEqualTo(502);
    assertThat(demand.headers().firstValue("Content-Type")).hasValue(Replies.JSON_TYPE);
    assertThat(demand.body()).doesNotContain("<script>");
  }

  @Test
  void shouldAnswerHealthChecksWhileEveryApiThreadWaitsForAPeer() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger waiting = new AtomicInteger();
    FakeStore a = store();
    DemandServer s = server(a, null, List.of());
    try {
      a.peers =
          List.of(
              fakePeer(
                  "application/json",
                  "{}",
                  () -> {
                    waiting.incrementAndGet();
                    release.await();
                  }));
      List<CompletableFuture<HttpResponse<String>>> summaries = new ArrayList<>();
      for (int i = 0; i < DemandServer.API_THREADS + 2; i++) {
        summaries.add(getAsync(s.url(), "api/v1/summary"));
      }
      awaitAtLeast("API threads waiting for the peer", waiting::get, DemandServer.API_THREADS);
      assertThat(waiting.get()).as("every API thread waits for the peer").isGreaterThanOrEqualTo(4);

      for (String path : List.of("healthz", "readyz", "metrics", "")) {
        HttpResponse<String> r = getAsync(s.url(), path).get(60, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        assertThat(summaries)
            .as("%s answered while every summary still waits for the peer", path)
            .noneMatch(CompletableFuture::isDone);
      }
    } finally {
      release.countDown();
    }
  }

  @Test
  void shouldReadTheTablesOfTheStoreAtMostOncePerSecondForTopAndSummary() throws Exception {
    FakeStore a = store();
    AtomicLong now = new AtomicLong(T);
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    a.self = s.advertisedAddress();
    s.clock(now::get);
    // a history that is not started: it does not sample the store on its own
    s.serve(
        a,
        null,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
        new DemandHistory(a, now::get));
    for (String path :
        List.of(
            "api/v1/demand/top",
            "api/v1/demand/top?by=age&n=1",
            "api/v1/demand/top?by=bytes",
            "api/v1/summary",
            "api/v1/summary?scope=local")) {
      for (int i = 0; i < 4; i++) {
        assertThat(get(s.url(), path).statusCode()).as(path).isEqualTo(200);
      }
    }
    assertThat(a.tablesRead.get()).as("20 requests, one read of the store").isEqualTo(1);
    assertThat(top(s, "api/v1/demand/top")).containsExactly("logs", "orders");

    a.hold("fresh", Events.writer("f", 500, 1, T));
    assertThat(top(s, "api/v1/demand/top"))
        .as("within the second")
        .containsExactly("logs", "orders");
    now.addAndGet(TableSnapshots.MAX_AGE_MS);
    assertThat(top(s, "api/v1/demand/top")).containsExactly("fresh", "logs", "orders");
    assertThat(JSON.readTree(get(s.url(), "api/v1/summary").body()).get("targets").asLong())
        .isEqualTo(3);
    assertThat(a.tablesRead.get()).isEqualTo(2);
  }

  @Test
  void shouldReadTheTablesFewerTimesThanRequestsWithTheRealClock() throws Exception {
    FakeStore a = store();
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    a.self = s.advertisedAddress();
    s.serve(a, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    int requests = 20;
    for (int i = 0; i < requests; i++) {
      assertThat(get(s.url(), i % 2 == 0 ? "api/v1/summary" : "api/v1/demand/top").statusCode())
          .isEqualTo(200);
    }
    assertThat(a.tablesRead.get())
        .as("reads of the store (the history samples it every 5 s too)")
        .isLessThan(requests);
  }

  private static List<String> top(DemandServer s, String path) throws Exception {
    List<String> out = new ArrayList<>();
    JSON.readTree(get(s.url(), path).body())
        .get("targets")
        .forEach(t -> out.add(t.get("target").asText()));
    return out;
  }

  @FunctionalInterface
  private interface Pause {
    void run() throws InterruptedException;
  }

  /** A peer that answers every request with {@code type} and {@code body}, after {@code pause}. */
  private String fakePeer(String type, String body, Pause pause) throws Exception {
    HttpServer f = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    f.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    f.createContext(
        "/",
        ex -> {
          try {
            if (pause != null) {
              pause.run();
            }
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", type);
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream out = ex.getResponseBody()) {
              out.write(b);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            ex.close();
          }
        });
    f.start();
    fakes.add(f);
    return "127.0.0.1:" + f.getAddress().getPort();
  }

  private static HttpResponse<String> get(URI base, String path) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static CompletableFuture<HttpResponse<String>> getAsync(URI base, String path) {
    return CLIENT.sendAsync(
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private record Raw(int status, String head, String body) {}

  /** A GET over a plain socket, with {@code host} as the Host header (null: none, HTTP/1.0). */
  private static Raw raw(DemandServer s, String path, String host) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", s.address().getPort())) {
      socket.setSoTimeout(60_000);
      String request =
          host == null
              ? "GET " + path + " HTTP/1.0\r\n\r\n"
              : "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int split = all.indexOf("\r\n\r\n");
      String head = all.substring(0, split);
      return new Raw(Integer.parseInt(head.split(" ")[1]), head, all.substring(split + 4));
    }
  }

  /**
   * Polls {@code count} until it reaches {@code least}; fails with the last count after a minute.
   */
  private static void awaitAtLeast(String what, IntSupplier count, int least)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (int seen = count.getAsInt(); seen < least; seen = count.getAsInt()) {
      if (System.nanoTime() - deadline >= 0) {
        throw new AssertionError("waited 60 s for " + least + " " + what + "; last saw " + seen);
      }
      Thread.sleep(20);
    }
  }
}
