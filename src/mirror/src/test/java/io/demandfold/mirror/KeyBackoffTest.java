package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The backoff of a key etcd refused for itself: doubling from 100 ms to 30 s, jittered. */
class KeyBackoffTest {
  @Test
  void shouldDoubleFromTheFirstDelayUpToTheLongest() {
    assertThat(KeyBackoff.ceilingMs(1)).isEqualTo(100);
    assertThat(KeyBackoff.ceilingMs(2)).isEqualTo(200);
    assertThat(KeyBackoff.ceilingMs(3)).isEqualTo(400);
    assertThat(KeyBackoff.ceilingMs(9)).isEqualTo(25_600);
    assertThat(KeyBackoff.ceilingMs(10)).isEqualTo(30_000);
    assertThat(KeyBackoff.ceilingMs(1_000_000)).as("no overflow").isEqualTo(30_000);
  }

  @Test
  void shouldDrawEachDelayBetweenHalfTheCeilingAndTheCeiling() {
    assertThat(new KeyBackoff(() -> 0.0).delayMs(1)).isEqualTo(50);
    assertThat(new KeyBackoff(() -> 0.0).delayMs(20)).isEqualTo(15_000);
    assertThat(new KeyBackoff(() -> Math.nextDown(1.0)).delayMs(1)).isEqualTo(100);
    assertThat(new KeyBackoff(() -> Math.nextDown(1.0)).delayMs(20)).isEqualTo(30_000);
    Random rnd = new Random(7);
    KeyBackoff b = new KeyBackoff(rnd::nextDouble);
    long distinct =
        java.util.stream.IntStream.range(0, 200)
            .mapToLong(i -> b.delayMs(4))
            .peek(d -> assertThat(d).isBetween(400L, 800L))
            .distinct()
            .count();
    assertThat(distinct).as("keys refused together come back apart").isGreaterThan(100);
  }

  @Test
  void shouldRefuseACountOfRefusalsBelowOne() {
    assertThatThrownBy(() -> KeyBackoff.ceilingMs(0)).hasMessageContaining("refusals must be >= 1");
  }
}
