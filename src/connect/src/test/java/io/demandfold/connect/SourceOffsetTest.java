package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SourceOffsetTest {
  @Test
  void shouldRoundTripBothPhasesThroughTheMapsConnectStores() {
    SourceOffset w = SourceOffset.watch(42, "cafe");
    SourceOffset s = SourceOffset.snapshot(7, "/df/demand-events/6f/s", null);
    assertThat(SourceOffset.parse(w.toMap())).isEqualTo(w);
    assertThat(SourceOffset.parse(s.toMap())).isEqualTo(s);
    // Connect's JSON offset store may hand numbers back as Integer
    assertThat(SourceOffset.parse(Map.of("phase", "watch", "revision", 42, "cluster_id", "cafe")))
        .isEqualTo(w);
  }

  @Test
  void shouldRejectOffsetsOfAnotherShape() {
    assertThatThrownBy(() -> SourceOffset.parse(Map.of("phase", "watch")))
        .hasMessageContaining("'revision' is null");
    assertThatThrownBy(() -> SourceOffset.parse(Map.of("phase", "snapshot", "revision", 3L)))
        .hasMessageContaining("names a key");
    assertThatThrownBy(() -> SourceOffset.parse(Map.of("phase", "watch", "revision", -1L)))
        .hasMessageContaining("must be >= 0");
  }
}
