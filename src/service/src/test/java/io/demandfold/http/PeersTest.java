package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.Limits;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.ViewJson;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fan-out to other instances: a reply longer than its bound is cut and named, whether it
 * declares its length or not; an announced address that is not a plain {@code host:port} is never
 * asked; the bound holds the largest reply the API can legitimately give.
 */
class PeersTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T = 1_764_400_000_000L;

  private final List<HttpServer> fakes = new ArrayList<>();
  private final List<DemandServer> servers = new ArrayList<>();
  private final AtomicInteger asked = new AtomicInteger();

  @AfterEach
  void close() {
    servers.forEach(DemandServer::close);
    fakes.forEach(f -> f.stop(0));
  }

  @Test
  void shouldCutAReplyLongerThanItsBoundWhetherItDeclaresItsLengthOrNot() throws Exception {
    long bound = 10_000;
    Peers peers = new Peers("127.0.0.1:1");
    for (boolean declared : List.of(true, false)) {
      String exact = peer(jsonOfLength((int) bound), declared);
      String over = peer(jsonOfLength((int) bound + 1), declared);
      String huge = peer(jsonOfLength(8 << 20), declared);

      Peers.Gathered<JsonNode> g =
          peers.gather(List.of(exact, over, huge), "/api/v1/summary", bound);

      assertThat(g.replies()).as("declared %s: the reply at the bound", declared).hasSize(1);
      assertThat(g.unavailable()).containsExactly(over, huge);
      assertThat(g.reasons().get(over)).startsWith("reply larger than 10000 bytes");
      assertThat(g.reasons().get(huge))
          .isEqualTo(
              "reply larger than 10000 bytes (it "
                  + (declared ? "declares " + (8 << 20) + " bytes" : "sent more than that")
                  + ")");
      assertThat(g.why()).contains(over + ": reply larger than 10000 bytes");
    }
  }

  @Test
  void shouldAnswerDemand502NamingTheInstanceWhoseReplyWasTooLarge() throws Exception {
    String peer = peer(jsonOfLength((int) Peers.replyBound(2, Peers.LINE_BYTES) + 1), false);
    FakeStore a = new FakeStore().hold("orders", Events.writer("s1", 20, 1, T));
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    a.self = s.advertisedAddress();
    a.peers = List.of(peer);
    s.serve(a, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));

    HttpResponse<String> demand = get(s.url(), "api/v1/demand?target=orders&limit=1");
    assertThat(demand.statusCode()).isEqualTo(502);
    assertThat(JSON.readTree(demand.body()).get("message").asText())
        .contains(peer + ": reply larger than " + Peers.replyBound(2, Peers.LINE_BYTES));

    HttpResponse<String> summary = get(s.url(), "api/v1/summary");
    assertThat(summary.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(summary.body()).get("unavailable"))
        .extracting(JsonNode::asText)
        .containsExactly(peer);
  }

  @Test
  void shouldNeverAskAnAnnouncedAddressThatIsNotAPlainHostAndPort() throws Exception {
    String good = peer("{\"instance\":\"x\"}", true);
    String port = good.substring(good.indexOf(':') + 1);
    List<String> bad =
        List.of(
            "user@127.0.0.1:" + port,
            "127.0.0.1:" + port + "/admin?",
            "127.0.0.1:" + port + "#",
            "127.0.0.1",
            "127.0.0.1:0",
            "127.0.0.1:65536",
            "127.0.0.1:-1",
            "a..b:" + port,
            "-a.example:" + port,
            "a_b.example:" + port,
            "[127.0.0.1]:" + port,
            "[::1:" + port,
            "::1:" + port);
    for (String b : bad) {
      assertThat(Peers.refusal(b)).as(b).isNotNull();
    }
    for (String ok :
        List.of(
            "127.0.0.1:80",
            "[::1]:8080",
            "demandfold-1.internal:8080",
            "a.example.:1",
            "x:65535")) {
      assertThat(Peers.refusal(ok)).as(ok).isNull();
    }

    List<String> all = new ArrayList<>(bad);
    all.add(good);
    Peers.Gathered<JsonNode> g = new Peers("127.0.0.1:1").gather(all, "/api/v1/summary", 1024);
    assertThat(asked.get()).as("requests that reached the server").isEqualTo(1);
    assertThat(g.replies()).hasSize(1);
    assertThat(g.unavailable()).containsExactlyElementsOf(bad);
  }

  @Test
  void shouldBoundEveryLineAboveTheLargestTheApiCanGive() {
    String target = "\u0001".repeat(Limits.MAX_TARGET_BYTES);
    String shard = "\u0001".repeat(Limits.MAX_SHARD_BYTES);
    ShardRecord.Builder b =
        ShardRecord.builder(shard)
            .sealedThrough(Long.MAX_VALUE)
            .sealedBytesThrough(Long.MAX_VALUE)
            .mergedThrough(Long.MAX_VALUE - 1)
            .mergedEpoch(Long.MAX_VALUE)
            .writerEpoch(Long.MAX_VALUE)
            .flushedAtMs(Long.MIN_VALUE)
            .source(Source.EXECUTOR);
    for (int i = 0; i < Limits.SEALED_TIMES_CAP; i++) {
      b.sealedTime(Long.MAX_VALUE - i, Long.MIN_VALUE + i);
    }
    ShardRecord r = b.build();
    String shardLine = ViewJson.shardLine(target, r);
    TableView v =
        new TableView(
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            OptionalLong.of(Long.MIN_VALUE),
            OptionalLong.of(Long.MIN_VALUE),
            Integer.MAX_VALUE);
    String tableLine = ViewJson.tableLine(target, v);
    String topLine = new TargetDemand(target, v).toJson().toString();
    System.out.printf(
        "largest lines: shard %d bytes, table %d, top %d (bound %d)%n",
        shardLine.length(), tableLine.length(), topLine.length(), Peers.LINE_BYTES);
    assertThat(shardLine).contains(Keys.hex(target));
    for (String line : List.of(shardLine, tableLine, topLine)) {
      assertThat((long) line.getBytes(StandardCharsets.UTF_8).length)
          .isLessThanOrEqualTo(Peers.LINE_BYTES);
    }
  }

  /** A JSON object of exactly {@code length} bytes. */
  private static String jsonOfLength(int length) {
    String head = "{\"instance\":\"x\",\"pad\":\"";
    return head + "a".repeat(length - head.length() - 2) + "\"}";
  }

  /** A peer answering every request with {@code body}, with its length declared or chunked. */
  private String peer(String body, boolean declareLength) throws Exception {
    HttpServer f = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    f.setExecutor(Executors.newCachedThreadPool());
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    f.createContext(
        "/",
        ex -> {
          asked.incrementAndGet();
          try (OutputStream out = ex.getResponseBody()) {
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, declareLength ? bytes.length : 0);
            out.write(bytes);
          } catch (java.io.IOException e) {
            // the reader cut the reply
          } finally {
            ex.close();
          }
        });
    f.start();
    fakes.add(f);
    return "127.0.0.1:" + f.getAddress().getPort();
  }

  private static HttpResponse<String> get(URI base, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(base.resolve(path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
