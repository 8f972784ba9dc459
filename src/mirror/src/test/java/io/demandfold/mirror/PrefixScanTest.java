package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PrefixScanTest {

  @Test
  void shouldEndAPrefixRangeAtThePrefixWithItsLastByteIncremented() {
    assertThat(
            new String(
                PrefixScan.prefixEnd("/df/demand-events/".getBytes(StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8))
        .isEqualTo("/df/demand-events0");
    assertThat(PrefixScan.prefixEnd(new byte[] {1, (byte) 0xff})).containsExactly(2);
    assertThat(PrefixScan.prefixEnd(new byte[] {(byte) 0xff, (byte) 0xff})).containsExactly(0);
  }

  @Test
  void shouldRejectAPageSizeBelowOne() {
    assertThatThrownBy(() -> new PrefixScan(null, "/df/", 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pageSize");
  }
}
