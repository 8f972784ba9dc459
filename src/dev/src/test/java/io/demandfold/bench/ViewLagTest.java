package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ViewLagTest {
  @Test
  void shouldTakeTheQuantilesOfTheLagsHeardAndCountTheRestLost() {
    // 1 .. 100 ms, shuffled by a stride, of 103 events timed
    long[] lags = LongStream.range(0, 100).map(i -> ((i * 37) % 100 + 1) * 1_000_000L).toArray();

    ViewLag.Result r = ViewLag.of(103, lags, 2);

    assertThat(r.timed()).isEqualTo(103);
    assertThat(r.measured()).isEqualTo(100);
    assertThat(r.lost()).isEqualTo(3);
    assertThat(r.unread()).isEqualTo(2);
    assertThat(r.p50()).isEqualTo(50.0);
    assertThat(r.p99()).isEqualTo(99.0);
    assertThat(r.max()).isEqualTo(100.0);
    assertThat(lags[0]).as("the caller's array is left as it was").isEqualTo(1_000_000L);
    assertThat(lags[1]).isEqualTo(38_000_000L);
  }

  @Test
  void shouldReportNothingMeasuredWhenNoEventWasHeard() {
    ViewLag.Result r = ViewLag.of(4, new long[0], 0);
    assertThat(r.measured()).isZero();
    assertThat(r.lost()).isEqualTo(4);
    assertThat(r.p50()).isNaN();
    assertThat(r.p99()).isNaN();
  }
}
