package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.concurrency.limits.Limit;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Each limit the live mirror can use grows while calls are quick and shrinks on timeouts. */
class MirrorLimitsTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void shouldGrowWhileCallsAreQuickAndShrinkOnTimeouts() {
    for (String name : MirrorLimits.NAMES) {
      Limit l = MirrorLimits.of(name, 32);
      int start = l.getLimit();
      long t = 0;
      for (int i = 0; i < 500; i++) {
        l.onSample(t += MS, 5 * MS, l.getLimit(), false);
      }
      int grown = l.getLimit();
      for (int i = 0; i < 50; i++) {
        l.onSample(t += MS, 5_000 * MS, grown, true);
      }
      int shrunk = l.getLimit();
      if (name.equals("fixed")) {
        assertThat(start).as(name).isEqualTo(32);
        assertThat(shrunk).as(name).isEqualTo(32);
      } else {
        assertThat(start).as(name + " starts low").isEqualTo(4);
        assertThat(grown).as(name + " grows").isGreaterThan(start).isLessThanOrEqualTo(32);
        assertThat(shrunk).as(name + " shrinks").isLessThan(grown).isGreaterThanOrEqualTo(1);
      }
    }
  }

  @Test
  void shouldNameTheKnownLimitsWhenGivenAnUnknownOne() {
    assertThatThrownBy(() -> MirrorLimits.of("bbr", 8))
        .hasMessage("unknown concurrency limit 'bbr'; one of vegas, gradient2, aimd, fixed");
  }
}
