package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.demandfold.core.Events;
import io.demandfold.core.codec.ViewJson;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API's fan-out to other instances against peers that answer badly: a reply that is not what
 * the endpoint asked for (a malformed one, a shard record of a newer schema) makes {@code demand}
 * answer 502 naming the peer and lists the peer as unavailable elsewhere, never a 500; and the
 * replies of one fan-out together are bounded in bytes and in time, however many peers answer.
 */
class PeerFanOutTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T = 1_764_400_000_000L;

  private final List<HttpServer> fakes = new ArrayList<>();
  private final List<DemandServer> servers = new ArrayList<>();

  @AfterEach
  void close() {
    servers.forEach(DemandServer::close);
    fakes.forEach(f -> f.stop(0));
  }

  @Test
  void shouldAnswerDemand502WhenAPeerAnswersSomethingThatIsNotItsShards() throws Exception {
    String line = ViewJson.shardLine("orders", Events.writer("s7", 4, 1, T));
    assertThat(line).contains("\"v\":1");
    Map<String, String> replies =
        Map.of(
            "no shards", "{\"instance\":\"p\",\"table\":null}",
            "shards not a list", "{\"instance\":\"p\",\"table\":null,\"shards\":7}",
            "a record that is not one", "{\"instance\":\"p\",\"shards\":[{\"record\":\"x\"}]}",
            "a record of a newer schema",
                "{\"instance\":\"p\",\"table\":null,\"shards\":["
                    + line.replace("\"v\":1", "\"v\":2")
                    + "]}",
            "a table that is not one",
                "{\"instance\":\"p\",\"table\":{\"pending_generations\":\"many\"},\"shards\":[]}",
            "no instance", "{\"table\":null,\"shards\":[]}");
    Map<String, String> answers = new TreeMap<>();
    for (var e : replies.entrySet()) {
      String peer = peer(e.getValue());
      HttpResponse<String> r = get(server(peer).url(), "api/v1/demand?target=orders");
      JsonNode error = JSON.readTree(r.body());
      answers.put(
          e.getKey(),
          r.statusCode()
              + " "
              + error.path("error").asText()
              + (error.path("message").asText().contains(peer + ": answered")
                  ? " naming the peer"
                  : ": " + error.path("message").asText()));
    }
    assertThat(answers)
        .allSatisfy(
            (why, answer) ->
                assertThat(answer).as(why).isEqualTo("502 bad_gateway naming the peer"));
  }

  @Test
  void shouldListAPeerWhoseReplyCannotBeReadAsUnavailable() throws Exception {
    // wrong for every endpoint: a list of instances that is not one, a target without a name,
    // a table without numbers, a point without a time, totals that are not numbers
    String peer =
        peer(
            "{\"instance\":\"p\",\"instances\":\"p\",\"targets\":[{\"pending_generations\":1}],"
                + "\"tables\":[{}],\"counts\":{},\"points\":[{\"pending_generations\":1}],"
                + "\"targets_pending\":\"many\"}");
    DemandServer s = server(peer);
    for (String path :
        List.of("api/v1/demand/top", "api/v1/queue", "api/v1/summary", "api/v1/history")) {
      HttpResponse<String> r = get(s.url(), path);
      assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
      JsonNode j = JSON.readTree(r.body());
      assertThat(j.get("unavailable")).as(path).extracting(JsonNode::asText).containsExactly(peer);
      assertThat(r.body()).as(path).doesNotContain("\"p\"");
    }
  }

  @Test
  void shouldBoundTheRepliesOfOneFanOutTogether() throws Exception {
    // three replies each within the bound of one reply of top?n=1000, over a third of what one
    // request may read from every peer together
    int each = (int) (Peers.FANOUT_BYTES / 3) + 1;
    assertThat((long) each).isLessThan(Peers.replyBound(1000, Peers.LINE_BYTES));
    List<String> peers = List.of(padded(each), padded(each), padded(each));

    Peers.Gathered<JsonNode> g =
        new Peers("127.0.0.1:1")
            .gather(peers, "/api/v1/demand/top?n=1000", Peers.replyBound(1000, Peers.LINE_BYTES));
    assertThat(g.replies()).as("replies read whole").hasSize(peers.size() - g.unavailable().size());
    assertThat(g.reasons())
        .as("peers cut for the total")
        .isNotEmpty()
        .allSatisfy(
            (peer, why) ->
                assertThat(why)
                    .isEqualTo(
                        "replies larger than "
                            + Peers.FANOUT_BYTES
                            + " bytes together (the bound of one request)"));

    HttpResponse<String> r =
        get(server(peers.toArray(String[]::new)).url(), "api/v1/demand/top?n=1000");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(r.body()).get("unavailable")).as("through the API").isNotEmpty();
  }

  @Test
  void shouldBoundTheTimeOfOneFanOutNotOfEachPeer() throws Exception {
    // each reply takes 40 x 250 ms = 10 s to send: a fan-out of 5 s in all reads none of them,
    // where 5 s for each peer in turn would have read the second and the third
    List<String> peers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      peers.add(tricklingPeer(40, 250));
    }
    Peers.Gathered<JsonNode> g =
        new Peers("127.0.0.1:1").gather(peers, "/api/v1/summary?scope=local", 1024);
    assertThat(g.replies()).isEmpty();
    assertThat(g.reasons().keySet()).containsExactlyElementsOf(peers);
    assertThat(g.reasons().values())
        .containsOnly("no whole answer within 5 s (of the whole request)");
  }

  private DemandServer server(String... peers) throws Exception {
    FakeStore a = new FakeStore().hold("orders", Events.writer("s1", 20, 1, T));
    DemandServer s = DemandServer.bind("127.0.0.1", 0);
    servers.add(s);
    a.self = s.advertisedAddress();
    a.peers = List.of(peers);
    s.serve(a, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    return s;
  }

  /** A peer answering a JSON object of {@code length} bytes that is an empty answer to top. */
  private String padded(int length) throws Exception {
    String head = "{\"instance\":\"x\",\"instances\":[\"x\"],\"targets\":[],\"pad\":\"";
    return peer(head + "a".repeat(length - head.length() - 2) + "\"}");
  }

  /** A peer answering every request with {@code body}, its length declared. */
  private String peer(String body) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return fake(
        out -> {
          out.write(bytes);
        },
        bytes.length);
  }

  /**
   * A peer answering a JSON object of {@code bytes} bytes, one byte each {@code everyMs} ms, its
   * headers at once.
   */
  private String tricklingPeer(int bytes, long everyMs) throws Exception {
    String head = "{\"pad\":\"";
    byte[] body =
        (head + "a".repeat(bytes - head.length() - 2) + "\"}").getBytes(StandardCharsets.UTF_8);
    return fake(
        out -> {
          for (byte b : body) {
            out.write(b);
            out.flush();
            try {
              Thread.sleep(everyMs);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
        },
        body.length);
  }

  private interface Body {
    void write(OutputStream out) throws IOException;
  }

  private String fake(Body body, int length) throws Exception {
    HttpServer f = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    f.setExecutor(Executors.newCachedThreadPool());
    f.createContext(
        "/",
        ex -> {
          try (OutputStream out = ex.getResponseBody()) {
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, length);
            body.write(out);
          } catch (IOException e) {
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
