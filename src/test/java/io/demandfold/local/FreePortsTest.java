package io.demandfold.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
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
}
