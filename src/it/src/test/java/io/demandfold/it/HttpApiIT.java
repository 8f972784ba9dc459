package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.docs.Docs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The HTTP API of running instances against a real broker and a real etcd. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HttpApiIT {

  @Test
  void shouldAnswerEveryTargetFromEitherOfTwoInstancesAsTheOfflineFold(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "api")) {
      Random rnd = new Random(11);
      List<DemandEvent> events = RandomStreams.stream(rnd, "api", 16, 64, 3000);
      Fold expected = Harness.fold(events);
      DemandfoldService a = h.start();
      DemandfoldService b = h.startAnother();
      h.produce(events, rnd);
      h.awaitEtcd(expected);
      Harness.await(
          "both instances running tasks",
          () -> List.of(Instance.of(a), Instance.of(b)),
          all -> all.stream().allMatch(Instance::runsTasks),
          Harness.PATIENCE);

      List<Api> apis =
          List.of(new Api(a.httpUrl().orElseThrow()), new Api(b.httpUrl().orElseThrow()));
      for (Api api : apis) {
        String self = null;
        for (String target : expected.targets().keySet()) {
          Api.Reply r = api.getSettled(Api.demandPath(target));
          assertThat(r.status()).as("%s from %s: %s", target, api, r.body()).isEqualTo(200);
          JsonNode json = r.json();
          assertThat(json.get("table"))
              .isEqualTo(Api.JSON.readTree(ViewJson.tableLine(target, expected.table(target))));
          List<JsonNode> shards = new ArrayList<>();
          for (ShardRecord s : expected.shards(target).values()) {
            shards.add(Api.JSON.readTree(ViewJson.shardLine(target, s)));
          }
          assertThat(json.get("shards")).containsExactlyElementsOf(shards);
          // the same shards page by page, three at a time, over both instances' stores
          List<JsonNode> paged = new ArrayList<>();
          String after = null;
          do {
            JsonNode page =
                api.getSettled(
                        Api.demandPath(target)
                            + "&limit=3"
                            + (after == null
                                ? ""
                                : "&after="
                                    + java.net.URLEncoder.encode(
                                        after, java.nio.charset.StandardCharsets.UTF_8)))
                    .json();
            assertThat(page.get("table")).isEqualTo(json.get("table"));
            page.get("shards").forEach(paged::add);
            after = page.get("next").isNull() ? null : page.get("next").asText();
          } while (after != null && paged.size() <= shards.size());
          assertThat(paged).containsExactlyElementsOf(shards);
          if (self == null) {
            self = api.get("healthz").json().get("instance").asText();
          }
          assertThat(json.get("instance").asText()).isEqualTo(self);
          assertThat(json.get("instances")).as("gathered from both instances").hasSize(2);
        }
        for (String by : List.of("pending", "age", "bytes")) {
          Api.Reply top = api.getSettled("api/v1/demand/top?n=5&by=" + by);
          assertThat(top.status()).isEqualTo(200);
          assertThat(top.json().get("instances")).hasSize(2);
          assertThat(targets(top.json()))
              .as("top by %s", by)
              .isEqualTo(expectedTop(expected, by, 5));
        }
        JsonNode summary = api.getSettled("api/v1/summary").json();
        assertThat(summary.get("pending_generations").asLong())
            .isEqualTo(
                expected.targets().keySet().stream()
                    .mapToLong(t -> expected.table(t).pendingGenerations())
                    .sum());
        assertThat(summary.get("targets").asLong()).isEqualTo(expected.targets().size());
        assertThat(summary.get("instances")).hasSize(2);
        assertThat(summary.get("unavailable")).isEmpty();
        JsonNode queue = api.getSettled("api/v1/queue?limit=1000").json();
        long now = queue.get("now_ms").asLong();
        List<String> ranked =
            expected.targets().keySet().stream()
                .filter(t -> expected.table(t).pendingGenerations() > 0)
                .sorted(
                    io.demandfold.core.DemandClasses.defaults()
                        .urgencyOrder(expected::table, t -> t, now))
                .toList();
        List<String> queued = new ArrayList<>();
        queue.get("tables").forEach(t -> queued.add(t.get("target").asText()));
        assertThat(queued).as("the queue in urgency order, over both instances").isEqualTo(ranked);
        assertThat(queue.get("instances")).hasSize(2);
      }
    }
  }

  @Test
  void shouldServeMetricsHealthAndJsonErrors(Services services) throws Exception {
    try (Harness h = new Harness(services, "metrics")) {
      Random rnd = new Random(12);
      List<DemandEvent> events = RandomStreams.stream(rnd, "m", 2, 6, 300);
      DemandfoldService s = h.start();
      h.produceRaw("bad".getBytes(), "{".getBytes());
      h.produce(events, rnd);
      h.awaitEtcd(Harness.fold(events));
      Api api = new Api(s.httpUrl().orElseThrow());

      Api.Reply ready = api.getSettled("readyz");
      assertThat(ready.status()).as(ready.body()).isEqualTo(200);
      assertThat(ready.json().get("streams").asText()).isEqualTo("RUNNING");
      assertThat(ready.json().get("etcd").asText()).isEqualTo("reachable");
      assertThat(api.get("healthz").status()).isEqualTo(200);

      Api.Reply unknown = api.getSettled(Api.demandPath("no-such-target"));
      assertThat(unknown.status()).isEqualTo(404);
      assertThat(unknown.json().get("message").asText()).contains("no-such-target");
      for (String bad :
          List.of(
              "api/v1/demand",
              "api/v1/demand/top?by=size",
              "api/v1/demand/top?n=0",
              "api/v1/demand?target=x&tagret=y")) {
        Api.Reply r = api.get(bad);
        assertThat(r.status()).as(bad).isEqualTo(400);
        assertThat(r.contentType()).startsWith("application/json");
        assertThat(r.json().get("message").asText()).isNotBlank();
      }

      Harness.await("a dead letter", () -> s.metrics().dlqTotal(), n -> n > 0, Harness.PATIENCE);
      System.gc(); // jvm_gc_pause_seconds appears with the first collection
      Api.Reply metrics = api.get("metrics");
      assertThat(metrics.status()).isEqualTo(200);
      assertThat(metrics.contentType()).startsWith("text/plain");
      java.nio.file.Files.writeString(java.nio.file.Path.of("target/metrics.txt"), metrics.body());
      List<Docs.Metric> documented = Docs.metrics();
      assertThat(documented).hasSizeGreaterThan(10);
      for (Docs.Metric m : documented) {
        String name = Pattern.quote(m.name().replace("*", ""));
        String pattern =
            m.isFamily()
                ? "(?m)^" + name + "\\w*[{ ]"
                : "(?m)^" + name + "(_count|_sum|_max|_bucket)?[{ ]";
        assertThat(Pattern.compile(pattern).matcher(metrics.body()).find())
            .as("documented metric %s in /metrics", m.name())
            .isTrue();
      }
      assertThat(metrics.body()).contains("demandfold_dlq_total{reason=\"undecodable\"} 1.0");
    }
  }

  /** An instance's streams state and its number of active tasks. */
  private record Instance(KafkaStreams.State state, int activeTasks) {
    static Instance of(DemandfoldService s) {
      return new Instance(
          s.streams().state(),
          s.streams().metadataForLocalThreads().stream()
              .mapToInt(t -> t.activeTasks().size())
              .sum());
    }

    boolean runsTasks() {
      return state == KafkaStreams.State.RUNNING && activeTasks > 0;
    }
  }

  private static List<String> targets(JsonNode top) {
    List<String> out = new ArrayList<>();
    ((ArrayNode) top.get("targets")).forEach(t -> out.add(t.get("target").asText()));
    return out;
  }

  private static List<String> expectedTop(Fold fold, String by, int n) {
    Comparator<Map.Entry<String, TableView>> order;
    switch (by) {
      case "pending":
        order = Comparator.comparingLong(e -> -e.getValue().pendingGenerations());
        break;
      case "bytes":
        order = Comparator.comparingLong(e -> -e.getValue().pendingBytes());
        break;
      default:
        order =
            Comparator.comparingLong(e -> e.getValue().oldestPendingMs().orElse(Long.MAX_VALUE));
    }
    order = order.thenComparing(Map.Entry::getKey, Keys.UTF8_ORDER);
    return fold.targets().keySet().stream()
        .map(t -> Map.entry(t, fold.table(t)))
        .filter(e -> e.getValue().pendingGenerations() > 0)
        .sorted(order)
        .limit(n)
        .map(Map.Entry::getKey)
        .toList();
  }
}
