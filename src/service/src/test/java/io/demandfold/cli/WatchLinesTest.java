package io.demandfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.TableView;
import io.demandfold.core.Urgency;
import io.demandfold.view.TableChange;
import io.demandfold.view.TableDemand;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class WatchLinesTest {
  private static final long NOW = 1_764_400_000_000L;

  private static TableDemand demand(String target, long pending, Urgency u, long rev) {
    return new TableDemand(
        target,
        new TableView(pending, 1000, OptionalLong.of(NOW - 9000), OptionalLong.of(NOW - 5000), 2),
        rev,
        u);
  }

  @Test
  void shouldAlignChangesInTheColumnsOfTheListing() {
    WatchLines lines = new WatchLines(false);
    List<String> listing = lines.listing(List.of(demand("a-long-target", 12, Urgency.DUE, 7)), NOW);
    assertThat(listing)
        .containsExactly(
            "TARGET         CLASS     PENDING  PENDING_BYTES  OLDEST_PENDING  BOUND  SHARDS  REVISION",
            "a-long-target  due            12           1000              9s  upper       2         7");
    assertThat(
            lines.change(
                new TableChange("b", null, demand("b", 1, Urgency.PENDING, 9), 9, null), NOW))
        .isEqualTo(
            "b              pending         1           1000              9s  upper       2         9");
    assertThat(lines.change(new TableChange("a\u001b", null, null, 10, null), NOW))
        .isEqualTo(
            "a\\u001b        deleted         -              -               -  -           -        10");
    assertThat(lines.change(new TableChange("c", null, null, 11, "newer schema: v 9"), NOW))
        .endsWith("  newer schema: v 9")
        .contains("refused");
  }

  @Test
  void shouldWriteOneJsonObjectPerTableChangeAndResync() {
    WatchLines lines = new WatchLines(true);
    assertThat(lines.listing(List.of(demand("a", 12, Urgency.DUE, 7)), NOW))
        .containsExactly(
            "{\"target\":\"a\",\"hex\":\"61\",\"class\":\"due\",\"pending_generations\":12,"
                + "\"pending_bytes\":1000,\"oldest_pending_ms\":1764399991000,"
                + "\"oldest_pending_exact_ms\":1764399995000,\"oldest_pending_bound\":\"upper\","
                + "\"shards\":2,\"revision\":7}");
    assertThat(lines.change(new TableChange("a", null, null, 8, null), NOW))
        .isEqualTo("{\"target\":\"a\",\"hex\":\"61\",\"revision\":8,\"deleted\":true}");
    assertThat(lines.change(new TableChange("a", null, null, 9, "unreadable"), NOW))
        .isEqualTo("{\"target\":\"a\",\"hex\":\"61\",\"revision\":9,\"refused\":\"unreadable\"}");
    assertThat(lines.resynced(12)).isEqualTo("{\"resynced\":true,\"revision\":12}");
  }
}
