package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.local.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /readyz} against a real etcd, probed by one get of the prefix key (which does not exist):
 * ready while etcd answers, not ready while it is stopped, ready again once it is back.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EtcdProbeIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final ByteSequence PREFIX = ByteSequence.from("/probe/", StandardCharsets.UTF_8);

  private EtcdServer etcd;
  private Client client;
  private DemandServer server;

  @AfterEach
  void close() {
    if (server != null) {
      server.close();
    }
    if (client != null) {
      client.close();
    }
    if (etcd != null) {
      etcd.close();
    }
  }

  @Test
  void shouldBeReadyOnlyWhileEtcdAnswersTheGetOfThePrefixKey() throws Exception {
    etcd = EtcdServer.builder().build().start();
    client = Client.builder().endpoints(etcd.endpoint()).build();
    for (int i = 0; i < 100; i++) {
      client
          .getKVClient()
          .put(
              ByteSequence.from("/probe/k" + i, StandardCharsets.UTF_8),
              ByteSequence.from("v", StandardCharsets.UTF_8))
          .get(10, TimeUnit.SECONDS);
    }
    server = DemandServer.bind("127.0.0.1", 0);
    FakeStore store = new FakeStore();
    store.self = server.advertisedAddress();
    server.serve(
        store,
        new EtcdKeyProbe(client.getKVClient(), PREFIX, 2000),
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));

    JsonNode up = awaitReadyz(r -> r.get("ready").asBoolean(), Duration.ofSeconds(30));
    assertThat(up.get("etcd").asText()).isEqualTo("reachable");

    etcd.stop();
    JsonNode down = awaitReadyz(r -> !r.get("ready").asBoolean(), Duration.ofSeconds(30));
    assertThat(down.get("etcd").asText()).startsWith("unreachable");
    assertThat(down.get("streams").asText()).isEqualTo("RUNNING");

    etcd.restart();
    JsonNode back = awaitReadyz(r -> r.get("ready").asBoolean(), Duration.ofSeconds(90));
    assertThat(back.get("etcd").asText()).isEqualTo("reachable");
  }

  /** Polls {@code /readyz} until its answer matches, checking that 200 goes with ready. */
  private JsonNode awaitReadyz(Predicate<JsonNode> until, Duration patience) throws Exception {
    long deadline = System.nanoTime() + patience.toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r =
          CLIENT.send(
              HttpRequest.newBuilder(server.url().resolve("readyz"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      last = JSON.readTree(r.body());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(last.get("ready").asBoolean() ? 200 : 503);
      if (until.test(last)) {
        return last;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("readyz never matched within " + patience + "; last: " + last);
  }
}
