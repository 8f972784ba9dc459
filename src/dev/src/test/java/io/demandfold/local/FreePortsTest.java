package io.demandfold.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  @Test
  void shouldNeverHandOutTheSamePortTwice() {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      assertThat(ports.add(FreePorts.next())).as("port handed out twice").isTrue();
    }
  }

  @Test
  void shouldHandOutABindableLoopbackPort() throws IOException {
    int port = FreePorts.next();
    assertThat(FreePorts.isListening(port)).isFalse();
    try (ServerSocket socket = new ServerSocket(port, 1, FreePorts.LOOPBACK)) {
      assertThat(socket.getLocalPort()).isEqualTo(port);
      assertThat(FreePorts.isListening(port)).isTrue();
    }
  }

  @Test
  void shouldHandOutPortsBelowTheEphemeralRangeWhereItIsKnown() throws IOException {
    assumeTrue(Files.exists(FreePorts.EPHEMERAL_RANGE), "no Linux ephemeral port range here");
    String range;
    try (BufferedReader r = Files.newBufferedReader(FreePorts.EPHEMERAL_RANGE)) {
      range = r.readLine();
    }
    int low = Integer.parseInt(range.trim().split("\\s+")[0]);
    assertThat(FreePorts.EPHEMERAL_LOW).as("the first port of the range %s", range).isEqualTo(low);
    for (int i = 0; i < 50; i++) {
      int port = FreePorts.next();
      if (low - FreePorts.LOWEST >= 1_000) {
        assertThat(port)
            .as("a port outgoing connections do not take theirs from")
            .isBetween(FreePorts.LOWEST, low - 1);
      }
    }
  }
}
