package io.demandfold.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaBrokerBuilderTest {
  @Test
  void shouldRejectAHeapThatIsNotAnXmxSize() {
    assertThatThrownBy(() -> KafkaBroker.builder().heap("-Xmx512m"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("heap");
  }

  @Test
  void shouldGiveInternalTopicsReplicationFactorOne() {
    Map<String, String> props = ServerProperties.combined(1, 9092, 9093, Path.of("/d"));

    assertThat(props)
        .containsEntry("offsets.topic.replication.factor", "1")
        .containsEntry("transaction.state.log.replication.factor", "1")
        .containsEntry("transaction.state.log.min.isr", "1")
        .containsEntry("share.coordinator.state.topic.replication.factor", "1")
        .containsEntry("controller.quorum.voters", "1@127.0.0.1:9093")
        .containsEntry("advertised.listeners", "PLAINTEXT://127.0.0.1:9092");
  }

  @Test
  void shouldFillInThePortsOfExtraProperties() {
    Map<String, String> extra =
        Map.of(
            "listeners",
            "SASL_PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller.port}");

    assertThat(ServerProperties.resolve(extra, 1234, 5678))
        .containsEntry("listeners", "SASL_PLAINTEXT://127.0.0.1:1234,CONTROLLER://127.0.0.1:5678");
  }

  @Test
  void shouldRejectPortsOutOfRangeAndANegativeNodeIdAndKeepFixedPorts() {
    assertThatThrownBy(() -> KafkaBroker.builder().ports(0, 9093))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ports");
    assertThatThrownBy(() -> KafkaBroker.builder().ports(9092, 65536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ports");
    assertThatThrownBy(() -> KafkaBroker.builder().nodeId(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nodeId");
    // a node of a cluster knows its address before it starts: its peers name it
    try (KafkaBroker b = KafkaBroker.builder().nodeId(2).ports(19092, 19093).build()) {
      assertThat(b.bootstrapServers()).isEqualTo("127.0.0.1:19092");
    }
  }
}
