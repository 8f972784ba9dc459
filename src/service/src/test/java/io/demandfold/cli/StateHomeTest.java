package io.demandfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateHomeTest {
  @Test
  void shouldFollowXdgStateHomeAndElseTheHomeDirectory() {
    assertThat(StateHome.of(Map.of("XDG_STATE_HOME", "/var/state"), "/home/u"))
        .isEqualTo(Path.of("/var/state/demandfold"));
    assertThat(StateHome.of(Map.of(), "/home/u"))
        .isEqualTo(Path.of("/home/u/.local/state/demandfold"));
    // the XDG rule: a relative or empty value is ignored
    assertThat(StateHome.of(Map.of("XDG_STATE_HOME", "state"), "/home/u"))
        .isEqualTo(Path.of("/home/u/.local/state/demandfold"));
    assertThat(StateHome.of(Map.of("XDG_STATE_HOME", ""), "/home/u"))
        .isEqualTo(Path.of("/home/u/.local/state/demandfold"));
  }
}
