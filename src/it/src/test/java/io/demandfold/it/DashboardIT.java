package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real headless Chromium at 1400 x 1000, on a running pipeline: what it shows
 * equals what the API answers, it follows new events without a reload, its chart starts from the
 * server's history, and nothing overflows the viewport or its card (long shard ids and target names
 * included). Leaves {@code target/dashboard.png}.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DashboardIT {
  /** What the page shows: tiles, the top rows and the drill-down rows, as raw numbers and text. */
  private static final String SHOWN =
      "(() => { const $ = (id) => document.getElementById(id);"
          + " const rows = (sel) => [...document.querySelectorAll(sel)].map((tr) => ({"
          + "  key: tr.dataset.target || tr.dataset.shard,"
          + "  pending: tr.querySelector('.c-pending').dataset.value,"
          + "  pendingText: tr.querySelector('.c-pending').textContent,"
          + "  bytes: (tr.querySelector('.c-bytes') || tr.querySelector('.c-sealed-bytes')).dataset.value,"
          + "  oldest: tr.querySelector('.c-age').dataset.oldestMs,"
          + "  bound: tr.querySelector('.c-age').dataset.bound,"
          + "  badge: (tr.querySelector('.bound') || {}).textContent || '' }));"
          + " return { updates: Number(document.body.dataset.updates), status: $('status').dataset.state,"
          + "  pending: $('total-pending').dataset.value, pendingText: $('total-pending').textContent,"
          + "  bytes: $('total-bytes').dataset.value, targetsPending: $('targets-pending').dataset.value,"
          + "  dlq: $('dlq-total').dataset.value, lag: $('mirror-lag').dataset.value,"
          + "  chartPoints: Number($('pending-chart').dataset.points),"
          + "  top: rows('#top-body tr'), drillTarget: $('drill').dataset.target,"
          + "  drill: rows('#drill-body tr') }; })()";

  /**
   * Every element that sticks out of the viewport or out of its card, and a page that scrolls
   * sideways; empty when everything fits.
   */
  private static final String OVERFLOWING =
      "(() => { const W = document.documentElement.clientWidth, out = [];"
          + " const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')"
          + "  + (e.className && typeof e.className === 'string' ? '.' + e.className : '');"
          + " if (document.documentElement.scrollWidth > W) out.push('page is '"
          + "  + document.documentElement.scrollWidth + ' px wide, viewport ' + W);"
          + " for (const e of document.querySelectorAll('body *')) {"
          + "  const r = e.getBoundingClientRect(); if (r.width === 0 && r.height === 0) continue;"
          + "  if (r.left < -0.5 || r.right > W + 0.5) out.push(name(e) + ' spans ' + r.left + '..' + r.right);"
          + "  const card = e.parentElement && e.parentElement.closest('.panel, .tile');"
          + "  if (card) { const c = card.getBoundingClientRect();"
          + "   if (r.left < c.left - 0.5 || r.right > c.right + 0.5)"
          + "    out.push(name(e) + ' spans ' + r.left + '..' + r.right + ', its card ' + c.left + '..' + c.right); }"
          + "  const x = getComputedStyle(e).overflowX;"
          + "  if ((x === 'auto' || x === 'scroll') && e.scrollWidth > e.clientWidth)"
          + "   out.push(name(e) + ' scrolls sideways'); }"
          + " return out; })()";

  /** The shard cells cut with an ellipsis: their text and tooltip. */
  private static final String CUT_SHARDS =
      "[...document.querySelectorAll('#drill-body td.c-shard')]"
          + ".filter((td) => td.scrollWidth > td.clientWidth)"
          + ".map((td) => ({ text: td.textContent, title: td.title }))";

  @Test
  void shouldShowLiveDemandEqualToTheApiInHeadlessChromium(Services services, @TempDir Path profile)
      throws Exception {
    try (Harness h = new Harness(services, "dashboard")) {
      Random rnd = new Random(21);
      List<DemandEvent> events = new ArrayList<>(RandomStreams.stream(rnd, "dash", 12, 60, 2400));
      // one target whose oldest pending time is only an upper bound, at the top by pending
      long now = System.currentTimeMillis();
      events.add(
          0,
          new DemandEvent(
              "dash-upper-bound",
              ShardRecord.builder("s")
                  .sealedThrough(100)
                  .sealedBytesThrough(3L << 30)
                  .mergedThrough(10)
                  .writerEpoch(1)
                  .flushedAtMs(now - 60_000)
                  .source(Source.WRITER)
                  .sealedTime(50, now - 300_000)
                  .build()));
      // shard ids as the simulated fleet has them (UUIDs), and a long table name
      for (int i = 0; i < 3; i++) {
        events.add(
            1,
            new DemandEvent(
                "dash-upper-bound",
                ShardRecord.builder(new java.util.UUID(rnd.nextLong(), rnd.nextLong()).toString())
                    .sealedThrough(5 + i)
                    .sealedBytesThrough(5L << 20)
                    .writerEpoch(1)
                    .flushedAtMs(now - 30_000)
                    .source(Source.WRITER)
                    .build()));
      }
      events.add(
          1,
          new DemandEvent(
              "dash-" + "a-rather-long-table-name-".repeat(6) + "end",
              ShardRecord.builder("s")
                  .sealedThrough(7)
                  .writerEpoch(1)
                  .flushedAtMs(now - 20_000)
                  .source(Source.WRITER)
                  .build()));
      List<DemandEvent> first = events.subList(0, 1200);
      Fold all = Harness.fold(events);
      DemandfoldService s = h.start();
      h.produceRaw("not-hex/x".getBytes(), "{\"v\":1}".getBytes());
      h.produce(first, rnd);
      h.awaitEtcd(Harness.fold(first));
      Api api = new Api(s.httpUrl().orElseThrow());

      // the server samples its totals every 5 s: wait for a few samples
      int sampled =
          Harness.await(
              "3 points of /api/v1/history",
              () -> historyPoints(api),
              n -> n >= 3,
              Duration.ofSeconds(60));

      try (Chromium browser = Chromium.start(profile, Path.of("target/chromium.log"))) {
        // a page that refreshes once an hour: what it shows comes from its first update
        Chromium.Page hourly =
            browser.open(s.httpUrl().orElseThrow() + "?refresh=3600000", 1400, 1000);
        Harness.await(
            "the hourly page's first update",
            () -> updates(hourly),
            n -> n >= 1,
            Duration.ofSeconds(60));
        JsonNode firstPaint = hourly.eval(SHOWN);
        assertThat(firstPaint.get("updates").asInt()).isEqualTo(1);
        assertThat(firstPaint.get("chartPoints").asInt())
            .as("the chart has the server's samples and the first poll at first paint")
            .isGreaterThanOrEqualTo(sampled + 1);

        Chromium.Page page = browser.open(s.httpUrl().orElseThrow() + "?refresh=300", 1400, 1000);
        JsonNode before = awaitShownEqualsApi(page, api);
        assertThat(page.eval(OVERFLOWING))
            .as("elements out of the viewport or their card")
            .isEmpty();
        JsonNode cut = page.eval(CUT_SHARDS);
        assertThat(cut).as("the UUID shard ids are cut to fit").isNotEmpty();
        for (JsonNode c : cut) {
          assertThat(c.get("title").asText()).isEqualTo(c.get("text").asText());
        }
        assertThat(before.get("status").asText()).isEqualTo("live");
        assertThat(before.get("dlq").asLong()).isEqualTo(1);
        assertThat(before.get("drillTarget").asText()).isEqualTo("dash-upper-bound");
        assertThat(before.at("/drill/0/badge").asText()).isEqualTo("upper");
        assertThat(before.get("top").findValuesAsText("badge")).contains("exact", "upper");

        h.produce(events.subList(first.size(), events.size()), rnd);
        h.awaitEtcd(all);
        long total =
            all.targets().keySet().stream().mapToLong(t -> all.table(t).pendingGenerations()).sum();
        // top and summary answer from a read of the stores at most a second old
        Harness.awaitEquals(
            "pending generations of /api/v1/summary",
            () -> summaryPending(api),
            total,
            Duration.ofSeconds(60));
        JsonNode after = awaitShownEqualsApi(page, api);
        assertThat(after.get("pending").asLong()).isEqualTo(total);
        assertThat(after.get("updates").asInt()).isGreaterThan(before.get("updates").asInt());
        assertThat(after.get("chartPoints").asInt())
            .isGreaterThan(before.get("chartPoints").asInt());
        assertThat(page.eval(OVERFLOWING))
            .as("elements out of the viewport or their card")
            .isEmpty();
        page.screenshot(Path.of("target/dashboard.png"));
      }
    }
  }

  private static int historyPoints(Api api) {
    try {
      return api.getSettled("api/v1/history").json().get("points").size();
    } catch (Exception e) {
      return 0;
    }
  }

  private static int updates(Chromium.Page page) {
    try {
      return page.eval("Number(document.body.dataset.updates)").asInt();
    } catch (Exception e) {
      return 0;
    }
  }

  /**
   * Waits until the page shows exactly what the API answers now, then asserts it: totals, the top
   * 20 by pending, and the shards of the target drilled into.
   */
  private static JsonNode awaitShownEqualsApi(Chromium.Page page, Api api) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    JsonNode shown;
    JsonNode expected;
    do {
      Thread.sleep(300);
      shown = page.eval(SHOWN);
      expected = expectedShown(api, shown.path("drillTarget").asText(""));
    } while (!comparable(shown).equals(expected) && System.nanoTime() < deadline);
    assertThat(comparable(shown)).isEqualTo(expected);
    assertThat(shown.get("top")).isNotEmpty();
    for (JsonNode row : shown.get("top")) {
      assertThat(row.get("pendingText").asText().replace(",", ""))
          .isEqualTo(row.get("pending").asText());
      assertThat(row.get("badge").asText()).isEqualTo(row.get("bound").asText());
    }
    assertThat(shown.get("pendingText").asText().replace(",", ""))
        .isEqualTo(shown.get("pending").asText());
    return shown;
  }

  /** The shown state without what the API has no counterpart for. */
  private static JsonNode comparable(JsonNode shown) {
    ObjectNode o = shown.deepCopy();
    o.remove(List.of("updates", "status", "pendingText", "lag", "chartPoints"));
    for (String list : List.of("top", "drill")) {
      o.get(list).forEach(r -> ((ObjectNode) r).remove(List.of("pendingText", "badge")));
    }
    return o;
  }

  /** What the page must show, from the API. */
  private static JsonNode expectedShown(Api api, String drillTarget) throws Exception {
    JsonNode summary = api.getSettled("api/v1/summary").json();
    JsonNode top = api.getSettled("api/v1/demand/top?n=20&by=pending").json();
    ObjectNode o = Api.JSON.createObjectNode();
    o.put("pending", summary.get("pending_generations").asText());
    o.put("bytes", summary.get("pending_bytes").asText());
    o.put("targetsPending", summary.get("targets_pending").asText());
    o.put("dlq", summary.get("dlq_total").asText());
    ArrayNode rows = o.putArray("top");
    for (JsonNode t : top.get("targets")) {
      rows.add(row(t.get("target"), t, t.get("pending_bytes"), t.get("oldest_pending_bound")));
    }
    String drilled = drillTarget.isEmpty() ? rows.path(0).path("key").asText() : drillTarget;
    o.put("drillTarget", drilled);
    ArrayNode drill = o.putArray("drill");
    JsonNode demand = api.getSettled(Api.demandPath(drilled)).json();
    for (JsonNode sh : demand.get("shards")) {
      drill.add(
          row(
              sh.get("shard"),
              sh,
              sh.at("/record/sealed_bytes_through"),
              sh.get("oldest_pending_bound")));
    }
    return o;
  }

  private static ObjectNode row(JsonNode key, JsonNode v, JsonNode bytes, JsonNode bound) {
    ObjectNode r = Api.JSON.createObjectNode();
    r.put("key", key.asText());
    r.put("pending", v.get("pending_generations").asText());
    r.put("bytes", bytes.asText());
    r.put("oldest", v.get("oldest_pending_ms").isNull() ? "" : v.get("oldest_pending_ms").asText());
    r.put("bound", bound.isNull() ? "" : bound.asText());
    return r;
  }

  private static long summaryPending(Api api) {
    try {
      return api.get("api/v1/summary").json().get("pending_generations").asLong();
    } catch (Exception e) {
      return -1;
    }
  }
}
