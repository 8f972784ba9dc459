package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DemandClassesTest {
  private static final long NOW = 1_764_400_000_000L;
  private static final long HOUR = 3_600_000;
  private final DemandClasses classes = DemandClasses.defaults();

  private static TableView view(long pending, long bytes, Long oldest, Long exact) {
    return new TableView(
        pending,
        bytes,
        oldest == null ? OptionalLong.empty() : OptionalLong.of(oldest),
        exact == null ? OptionalLong.empty() : OptionalLong.of(exact),
        1);
  }

  @Test
  void shouldClassByTheReferenceThresholds() {
    assertThat(classes.classify(view(0, 0, null, null), NOW)).isEqualTo(Urgency.IDLE);
    assertThat(classes.classify(view(1, 10, NOW, NOW), NOW)).isEqualTo(Urgency.PENDING);
    assertThat(classes.classify(view(7, 10, NOW, NOW), NOW)).isEqualTo(Urgency.PENDING);
    assertThat(classes.classify(view(8, 10, NOW, NOW), NOW)).isEqualTo(Urgency.DUE);
    assertThat(classes.classify(view(255, 10, NOW, NOW), NOW)).isEqualTo(Urgency.DUE);
    assertThat(classes.classify(view(256, 10, NOW, NOW), NOW)).isEqualTo(Urgency.CRITICAL);
  }

  @Test
  void shouldPromoteByAnExactAgeOnlyNeverByAnUpperBound() {
    long old = NOW - HOUR;
    assertThat(classes.classify(view(1, 0, old, old), NOW)).isEqualTo(Urgency.DUE);
    assertThat(classes.classify(view(1, 0, old + 1, old + 1), NOW)).isEqualTo(Urgency.PENDING);
    // the oldest time is only an upper bound, and the exact one is fresh or unknown
    assertThat(classes.classify(view(1, 0, old - HOUR, NOW), NOW)).isEqualTo(Urgency.PENDING);
    assertThat(classes.classify(view(1, 0, old - HOUR, null), NOW)).isEqualTo(Urgency.PENDING);
    // nothing pending: an age never makes a table due
    assertThat(classes.classify(view(0, 0, null, old), NOW)).isEqualTo(Urgency.IDLE);
  }

  @Test
  void shouldTakeConfiguredThresholds() {
    DemandClasses c = new DemandClasses(2, 3, Duration.ofSeconds(10));
    assertThat(c.classify(view(1, 0, NOW, NOW), NOW)).isEqualTo(Urgency.PENDING);
    assertThat(c.classify(view(2, 0, NOW, NOW), NOW)).isEqualTo(Urgency.DUE);
    assertThat(c.classify(view(3, 0, NOW, NOW), NOW)).isEqualTo(Urgency.CRITICAL);
    assertThat(c.classify(view(1, 0, NOW - 10_000, NOW - 10_000), NOW)).isEqualTo(Urgency.DUE);
  }

  @Test
  void shouldRefuseThresholdsOutOfRangeNamingThem() {
    assertThatThrownBy(() -> new DemandClasses(0, 256, Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dueGenerations");
    assertThatThrownBy(() -> new DemandClasses(8, 7, Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("criticalGenerations");
    assertThatThrownBy(() -> new DemandClasses(8, 256, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxAge");
  }

  @Test
  void shouldRankByClassThenPendingThenExactAgeThenBytesThenTarget() {
    long old = NOW - 2 * HOUR;
    Map<String, TableView> views =
        Map.of(
            "critical", view(300, 1, NOW, NOW),
            "due-9", view(9, 1, NOW, NOW),
            "due-8-older", view(8, 1, NOW - 5, NOW - 5),
            "due-8", view(8, 1, NOW, NOW),
            "aged", view(2, 1, old, old),
            "upper", view(2, 1, old, null),
            "more-bytes", view(1, 100, NOW, NOW),
            "b", view(1, 1, NOW, NOW),
            "a", view(1, 1, NOW, NOW),
            "idle", view(0, 0, null, null));
    List<String> ranked = new ArrayList<>(views.keySet());
    ranked.sort(classes.urgencyOrder(views::get, t -> t, NOW));
    assertThat(ranked)
        .containsExactly(
            "critical",
            "due-9",
            "due-8-older",
            "due-8",
            "aged",
            "upper",
            "more-bytes",
            "a",
            "b",
            "idle");
  }

  @Test
  void shouldSayTheBoundOfTheOldestPendingTime() {
    assertThat(view(1, 0, 5L, 5L).oldestPendingBound()).isEqualTo(Bound.EXACT);
    assertThat(view(1, 0, 5L, 9L).oldestPendingBound()).isEqualTo(Bound.UPPER);
    assertThat(view(1, 0, 5L, null).oldestPendingBound()).isEqualTo(Bound.UPPER);
    assertThat(view(0, 0, null, null).oldestPendingBound()).isNull();
  }
}
